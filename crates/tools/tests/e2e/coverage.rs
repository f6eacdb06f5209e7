//! Coverage of long pages and virtual lists (docs/observation.md#coverage): what a snapshot says was seen, per
//! revision of the page and of each scroll container, and `scroll_next_screen` reading a
//! page or a container a screen at a time, each thing new reported once.
//!
//! The fixtures are `fixtures/coverage/*.html`; their comments give their geometry.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::harness::Harness;

fn harness() -> Harness {
    Harness::with(|options| options.enable_eval = true)
}

/// Opens `fixtures/coverage/{page}.html` and returns its first snapshot's envelope.
async fn open(h: &Harness, page: &str) -> Value {
    h.ok(
        "navigate",
        json!({ "url": h.url(&format!("coverage/{page}.html")) }),
    )
    .await;
    h.ok("snapshot", json!({})).await
}

/// One `scroll_next_screen`, of the page or of the container `r`.
async fn next_screen(h: &Harness, r: Option<&str>) -> Value {
    let mut params = json!({ "action": "scroll_next_screen" });
    if let Some(r) = r {
        params["ref"] = json!(r);
    }
    h.ok("act", params).await
}

/// What was seen of the page or of one container, as `data.coverage` says it.
#[derive(Debug, Clone, PartialEq)]
struct Cov {
    seen: Vec<(f64, f64)>,
    unseen: Vec<(f64, f64)>,
    fraction: f64,
    height: f64,
    at_end: bool,
}

impl Cov {
    /// Parses one coverage object and checks it is consistent with itself: ranges sorted,
    /// merged, inside `[0, height]`; seen and unseen together the whole height; the
    /// fraction that of the seen pixels.
    fn of(value: &Value) -> Cov {
        let ranges = |key: &str| -> Vec<(f64, f64)> {
            value[key]
                .as_array()
                .unwrap_or_else(|| panic!("no {key} ranges in {value:#}"))
                .iter()
                .map(|range| {
                    let (top, bottom) = (range[0].as_f64(), range[1].as_f64());
                    match (top, bottom) {
                        (Some(top), Some(bottom)) => (top, bottom),
                        _ => panic!("{range} is not [top, bottom] in {value:#}"),
                    }
                })
                .collect()
        };
        let cov = Cov {
            seen: ranges("seen"),
            unseen: ranges("unseen"),
            fraction: value["fraction"]
                .as_f64()
                .unwrap_or_else(|| panic!("no fraction in {value:#}")),
            height: value["height"]
                .as_f64()
                .unwrap_or_else(|| panic!("no height in {value:#}")),
            at_end: value["atEnd"]
                .as_bool()
                .unwrap_or_else(|| panic!("no atEnd in {value:#}")),
        };
        for ranges in [&cov.seen, &cov.unseen] {
            for (n, &(top, bottom)) in ranges.iter().enumerate() {
                assert!(
                    0.0 <= top && top < bottom && bottom <= cov.height + 1.0,
                    "{value:#}"
                );
                if n > 0 {
                    assert!(ranges[n - 1].1 < top, "ranges not merged: {value:#}");
                }
            }
        }
        let seen = span(&cov.seen);
        assert!(
            (seen + span(&cov.unseen) - cov.height).abs() <= 2.0,
            "seen and unseen do not make the height: {value:#}"
        );
        assert!((0.0..=1.0).contains(&cov.fraction), "{value:#}");
        assert!(
            (cov.fraction - seen / cov.height).abs() <= 0.01,
            "the fraction is not that of the seen ranges: {value:#}"
        );
        cov
    }
}

/// The page's coverage in a snapshot's or an action's envelope.
fn page_cov(envelope: &Value) -> Cov {
    let coverage = &envelope["data"]["coverage"];
    assert!(coverage.is_object(), "no data.coverage in {envelope:#}");
    Cov::of(&coverage["page"])
}

/// The coverage of the container `r` in a snapshot's or an action's envelope.
fn container_cov(envelope: &Value, r: &str) -> Cov {
    let containers = envelope["data"]["coverage"]["containers"]
        .as_array()
        .unwrap_or_else(|| panic!("no data.coverage.containers in {envelope:#}"));
    let container = containers
        .iter()
        .find(|c| c["ref"] == r)
        .unwrap_or_else(|| panic!("no coverage of container {r} in {envelope:#}"));
    Cov::of(container)
}

/// The ref of the only scroll container a snapshot's coverage names.
fn only_container(snapshot: &Value) -> String {
    let containers = snapshot["data"]["coverage"]["containers"]
        .as_array()
        .unwrap_or_else(|| panic!("no data.coverage.containers in {snapshot:#}"));
    assert_eq!(containers.len(), 1, "{snapshot:#}");
    let r = containers[0]["ref"].as_str().unwrap().to_string();
    assert!(browser::is_ref(&r), "{r} is no ref: {snapshot:#}");
    r
}

/// The total length of some ranges.
fn span(ranges: &[(f64, f64)]) -> f64 {
    ranges.iter().map(|(top, bottom)| bottom - top).sum()
}

/// Within the rounding of CSS pixels.
fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1.5
}

#[track_caller]
fn assert_seen(cov: &Cov, want: &[(f64, f64)], context: &Value) {
    let same = cov.seen.len() == want.len()
        && cov
            .seen
            .iter()
            .zip(want)
            .all(|(got, want)| near(got.0, want.0) && near(got.1, want.1));
    assert!(same, "seen {:?}, want {want:?}: {context:#}", cov.seen);
}

fn viewport_height(snapshot: &Value) -> f64 {
    snapshot["data"]["viewport"]["height"].as_f64().unwrap()
}

fn data_str<'a>(envelope: &'a Value, key: &str) -> &'a str {
    envelope["data"][key]
        .as_str()
        .unwrap_or_else(|| panic!("no data.{key} in {envelope:#}"))
}

fn scrolled_by(envelope: &Value) -> f64 {
    envelope["data"]["scrolledBy"]
        .as_f64()
        .unwrap_or_else(|| panic!("no data.scrolledBy in {envelope:#}"))
}

fn at_end(envelope: &Value) -> bool {
    envelope["data"]["atEnd"]
        .as_bool()
        .unwrap_or_else(|| panic!("no data.atEnd in {envelope:#}"))
}

/// Every number that follows `word` and a space in `text` ("Row 17" → 17).
fn numbers_after(text: &str, word: &str) -> Vec<u32> {
    let needle = format!("{word} ");
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        rest = &rest[at + needle.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if let Ok(n) = digits.parse() {
            found.push(n);
        }
    }
    found
}

/// `n` as the coverage line writes it: whole pixels, thousands separated by commas.
fn thousands(n: f64) -> String {
    let digits = format!("{}", n.round() as u64);
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The `# coverage:` line of a snapshot's text form.
fn coverage_line(snapshot: &Value) -> String {
    let text = tools::render_json("snapshot", snapshot);
    text.lines()
        .map(str::trim)
        .find(|l| l.starts_with("# coverage: "))
        .unwrap_or_else(|| panic!("no # coverage line in\n{text}"))
        .to_string()
}

#[tokio::test]
async fn the_coverage_fixtures_are_as_their_comments_say() {
    // What the tests below take for granted, checked with the tools that exist today.
    let h = harness();
    let eval = |expression: &str| {
        let h = &h;
        let expression = expression.to_string();
        async move { h.ok("eval", json!({ "expression": expression })).await["data"]["value"].clone() }
    };
    let article = open(&h, "article").await;
    let screens =
        article["data"]["scroll"]["pageHeight"].as_f64().unwrap() / viewport_height(&article);
    assert!((5.5..=7.0).contains(&screens), "{article:#}");

    let list = open(&h, "virtual-list").await;
    let shape = "(() => { const l = document.getElementById('rows'); \
                 return [l.clientHeight, l.scrollHeight, document.querySelectorAll('.row').length, \
                 document.documentElement.scrollHeight <= innerHeight]; })()";
    assert_eq!(eval(shape).await, json!([600, 40000, 30, true]), "{list:#}");
    eval("document.getElementById('rows').scrollTop = 39400").await;
    h.ok("wait", json!({ "selector": "[data-row='1000']" }))
        .await;
    let end = "[...document.querySelectorAll('.row')].map(r => Number(r.dataset.row))";
    let shown: Vec<u32> = serde_json::from_value(eval(end).await).unwrap();
    assert_eq!(shown, (971..=1000).collect::<Vec<_>>());

    open(&h, "panel").await;
    let shape = "(() => { const p = document.getElementById('panel'); \
                 return [p.clientHeight, p.scrollHeight, p.getBoundingClientRect().top, \
                 document.documentElement.scrollHeight]; })()";
    assert_eq!(eval(shape).await, json!([300, 2000, 200, 2600]));

    open(&h, "feed").await;
    assert_eq!(eval("window.__posts").await, 20);
    h.shutdown().await;
}

#[tokio::test]
async fn an_article_read_screen_by_screen_is_covered_whole_and_ends_at_its_end() {
    let h = harness();
    let first = open(&h, "article").await;
    let vh = viewport_height(&first);
    let height = first["data"]["scroll"]["pageHeight"].as_f64().unwrap();
    let cov = page_cov(&first);
    assert_seen(&cov, &[(0.0, vh)], &first);
    assert!(near(cov.height, height), "{first:#}");
    assert!(!cov.at_end, "{first:#}");
    let line = coverage_line(&first);
    let want = format!(
        "# coverage: seen 0–{} of {} px (",
        thousands(vh),
        thousands(height)
    );
    assert!(line.starts_with(&want), "{line:?} does not start {want:?}");
    let note = first["data"]["coverage"]["note"]
        .as_str()
        .unwrap_or_default();
    assert!(
        note.to_lowercase().contains("load"),
        "the note does not say viewport coverage is no claim of what a list loaded: {first:#}"
    );

    let step = 0.8 * vh;
    let mut fraction = cov.fraction;
    let mut bottom = cov.seen[0].1;
    // What the first snapshot listed (below the fold too, as its budget allowed) is not
    // new again when it comes into view: each paragraph reaches the agent once.
    let mut shown = data_str(&first, "text").to_string();
    let mut calls = 0;
    let mut past_listed = false;
    loop {
        calls += 1;
        assert!(calls <= 20, "no end after {calls} screens");
        let next = next_screen(&h, None).await;
        let by = scrolled_by(&next);
        let cov = page_cov(&next);
        let new = data_str(&next, "newContent");
        shown.push_str(new);
        assert!(by > 0.0 && by <= step + 1.5, "{next:#}");
        // Screens inside what the snapshot listed bring nothing new; once past it, every
        // screen brings something.
        if new.trim().is_empty() {
            assert!(!past_listed, "a screen brought nothing new: {next:#}");
        } else {
            past_listed = true;
        }
        // One range from the top to the bottom of what is now in view, growing.
        assert_seen(&cov, &[(0.0, bottom + by)], &next);
        bottom = cov.seen[0].1;
        assert!(cov.fraction > fraction, "{next:#}");
        fraction = cov.fraction;
        assert_eq!(cov.at_end, at_end(&next), "{next:#}");
        if at_end(&next) {
            assert!(
                near(bottom, height),
                "at the end short of the bottom: {next:#}"
            );
            break;
        }
        assert!(near(by, step), "not 80 % of the viewport: {next:#}");
    }
    assert!(calls >= 5, "a six-screen article read in {calls} calls");
    assert!(shown.contains("7. Modern aids"), "{shown}");
    assert!(shown.contains("The end of the article."), "{shown}");
    // Each paragraph reached the agent once: in the snapshot or in one screen.
    for s in 1..=7 {
        for p in 1..=4 {
            let marker = format!("Section {s} paragraph {p}.");
            assert_eq!(
                shown.matches(&marker).count(),
                1,
                "{marker} not once in\n{shown}"
            );
        }
    }

    let again = next_screen(&h, None).await;
    assert_eq!(scrolled_by(&again), 0.0, "{again:#}");
    assert!(at_end(&again), "{again:#}");
    let cov = page_cov(&again);
    assert!(cov.fraction >= 0.99, "{again:#}");
    assert!(cov.at_end, "{again:#}");
    assert!(span(&cov.unseen) <= 0.01 * cov.height, "{again:#}");
    let last = h.ok("snapshot", json!({})).await;
    assert!(page_cov(&last).fraction >= 0.99, "{last:#}");
    h.shutdown().await;
}

/// What reading the whole virtual list with `scroll_next_screen` gave.
struct Reading {
    /// The list's first snapshot.
    first: Value,
    /// Each row number in the order reported, the first snapshot's first.
    rows: Vec<u32>,
    /// The characters of every tool output, as JSON: navigate, snapshot, each act.
    chars: usize,
    /// The envelope of the call that found the end, and of one more call after it.
    end: Value,
    after_end: Value,
}

/// Opens the virtual list and reads it to its end a screen at a time.
async fn read_virtual_list(h: &Harness) -> Reading {
    let opened = h
        .ok(
            "navigate",
            json!({ "url": h.url("coverage/virtual-list.html") }),
        )
        .await;
    let first = h.ok("snapshot", json!({})).await;
    let mut chars = opened.to_string().chars().count() + first.to_string().chars().count();
    let r = only_container(&first);
    let text = data_str(&first, "text");
    assert!(text.contains(&format!("[{r}]")), "{first:#}");
    let mut rows = numbers_after(text, "Row");
    assert_eq!(rows.first(), Some(&1), "{first:#}");

    let mut calls = 0;
    let end = loop {
        calls += 1;
        assert!(calls <= 200, "no end of the list after {calls} screens");
        let next = next_screen(h, Some(&r)).await;
        chars += next.to_string().chars().count();
        rows.extend(numbers_after(data_str(&next, "newContent"), "Row"));
        if at_end(&next) {
            break next;
        }
        assert!(
            near(scrolled_by(&next), 480.0),
            "not 80 % of the 600px list: {next:#}"
        );
    };
    let after_end = next_screen(h, Some(&r)).await;
    Reading {
        first,
        rows,
        chars,
        end,
        after_end,
    }
}

#[tokio::test]
async fn scroll_next_screen_reads_every_row_of_a_virtual_list_exactly_once_and_ends_at_its_end() {
    let h = harness();
    let reading = read_virtual_list(&h).await;
    let first = &reading.first;
    let r = only_container(first);
    let list = container_cov(first, &r);
    assert_seen(&list, &[(0.0, 600.0)], first);
    assert!(near(list.height, 40_000.0), "{first:#}");
    assert!(!list.at_end, "{first:#}");
    // The page itself fits in the viewport: all of it is seen.
    let page = page_cov(first);
    assert!(page.at_end && page.fraction >= 0.99, "{first:#}");
    let line = coverage_line(first);
    let want = format!("; container [{r}] seen 0–600 of 40,000 px (");
    assert!(line.contains(&want), "{line:?} lacks {want:?}");

    let mut once = BTreeSet::new();
    for row in &reading.rows {
        assert!(
            once.insert(*row),
            "Row {row} reported twice: {:?}",
            reading.rows
        );
    }
    assert_eq!(
        once,
        (1..=1000).collect::<BTreeSet<u32>>(),
        "rows missed: {:?}",
        (1..=1000).filter(|n| !once.contains(n)).collect::<Vec<_>>()
    );
    // The call that found the end saw Row 1000 and says so, for the list and its coverage.
    let end = &reading.end;
    assert!(
        numbers_after(data_str(end, "newContent"), "Row").contains(&1000),
        "{end:#}"
    );
    let r = only_container(end);
    assert!(container_cov(end, &r).at_end, "{end:#}");
    let after = &reading.after_end;
    assert_eq!(scrolled_by(after), 0.0, "{after:#}");
    assert!(at_end(after), "{after:#}");
    assert!(
        numbers_after(data_str(after, "newContent"), "Row").is_empty(),
        "nothing is new once at the end: {after:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn reading_all_thousand_rows_through_scroll_next_screen_costs_under_40000_tokens() {
    let h = harness();
    let reading = read_virtual_list(&h).await;
    let rows: BTreeSet<u32> = reading.rows.iter().copied().collect();
    assert_eq!(rows.len(), 1000, "not every row was read");
    let tokens = reading.chars / 4;
    assert!(
        tokens < 40_000,
        "reading 1,000 rows cost about {tokens} tokens ({} characters of tool output)",
        reading.chars
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_scroll_panel_is_covered_on_its_own_and_scrolling_it_leaves_the_page_alone() {
    let h = harness();
    let first = open(&h, "panel").await;
    let vh = viewport_height(&first);
    let page = page_cov(&first);
    assert_seen(&page, &[(0.0, vh)], &first);
    assert!(near(page.height, 2600.0), "{first:#}");
    let r = only_container(&first);
    let panel = container_cov(&first, &r);
    assert_seen(&panel, &[(0.0, 300.0)], &first);
    assert!(near(panel.height, 2000.0), "{first:#}");

    let mut items = numbers_after(data_str(&first, "text"), "Notification");
    let mut bottom = panel.seen[0].1;
    let mut calls = 0;
    loop {
        calls += 1;
        assert!(calls <= 20, "no end of the panel after {calls} screens");
        let next = next_screen(&h, Some(&r)).await;
        items.extend(numbers_after(data_str(&next, "newContent"), "Notification"));
        // The page did not move, and what was seen of it is what was seen before.
        assert_eq!(page_cov(&next), page, "{next:#}");
        let panel = container_cov(&next, &r);
        assert_seen(&panel, &[(0.0, bottom + scrolled_by(&next))], &next);
        bottom = panel.seen[0].1;
        if at_end(&next) {
            assert!(panel.at_end && panel.fraction >= 0.99, "{next:#}");
            break;
        }
        assert!(
            near(scrolled_by(&next), 240.0),
            "not 80 % of 300px: {next:#}"
        );
    }
    let once: BTreeSet<u32> = items.iter().copied().collect();
    assert_eq!(once.len(), items.len(), "an item reported twice: {items:?}");
    assert_eq!(once, (1..=50).collect::<BTreeSet<u32>>(), "{items:?}");

    let read = h.ok("snapshot", json!({})).await;
    assert_eq!(page_cov(&read), page, "{read:#}");
    assert!(container_cov(&read, &r).fraction >= 0.99, "{read:#}");

    // Scrolling the page (the panel stays in view) leaves the panel's coverage alone.
    h.ok("act", json!({ "action": "scroll", "dy": 100 })).await;
    let read = h.ok("snapshot", json!({})).await;
    assert_eq!(read["data"]["scroll"]["y"], 100.0, "{read:#}");
    assert_seen(&page_cov(&read), &[(0.0, vh + 100.0)], &read);
    let panel = container_cov(&read, &r);
    assert!(panel.fraction >= 0.99 && panel.at_end, "{read:#}");
    h.shutdown().await;
}

/// Opens the article and reads its first three screens (the snapshot and two calls);
/// returns the page coverage then.
async fn three_screens_of_the_article(h: &Harness) -> Cov {
    let first = open(h, "article").await;
    let vh = viewport_height(&first);
    next_screen(h, None).await;
    let second = next_screen(h, None).await;
    let cov = page_cov(&second);
    assert_seen(&cov, &[(0.0, vh + 2.0 * 0.8 * vh)], &second);
    cov
}

#[tokio::test]
async fn content_inserted_at_the_top_drops_what_was_seen_back_to_the_current_window() {
    let h = harness();
    let before = three_screens_of_the_article(&h).await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Insert at top" }),
    )
    .await;
    let read = h.ok("snapshot", json!({})).await;
    let cov = page_cov(&read);
    let y = read["data"]["scroll"]["y"].as_f64().unwrap();
    let vh = viewport_height(&read);
    // What was read moved down (and the view with it): none of it counts as seen in this
    // revision, only what is in view now.
    assert_seen(&cov, &[(y, y + vh)], &read);
    assert!(cov.fraction < before.fraction, "{read:#}");
    assert!(cov.height > before.height, "{read:#}");
    assert!(data_str(&read, "text").contains("Inserted paragraph 1"));
    h.shutdown().await;
}

#[tokio::test]
async fn a_viewport_change_drops_what_was_seen_back_to_the_current_window() {
    let h = harness();
    let before = three_screens_of_the_article(&h).await;
    h.ok("viewport", json!({ "preset": "phone" })).await;
    let read = h.ok("snapshot", json!({})).await;
    let vh = viewport_height(&read);
    assert!(near(vh, 844.0), "{read:#}");
    let y = read["data"]["scroll"]["y"].as_f64().unwrap();
    let cov = page_cov(&read);
    assert_seen(&cov, &[(y, y + vh)], &read);
    assert!(cov.fraction < before.fraction, "{read:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn an_infinite_feed_is_read_to_its_end_and_every_post_is_reported() {
    let h = harness();
    let first = open(&h, "feed").await;
    let mut posts: BTreeSet<u32> = numbers_after(data_str(&first, "text"), "Post")
        .into_iter()
        .collect();
    let mut ended = false;
    let mut calls = 0;
    loop {
        calls += 1;
        assert!(calls <= 100, "no end of the feed after {calls} screens");
        let next = next_screen(&h, None).await;
        let new = data_str(&next, "newContent");
        posts.extend(numbers_after(new, "Post"));
        ended |= new.contains("End of feed");
        if at_end(&next) {
            // The end is the feed's: every batch was loaded before the bottom was claimed.
            assert!(page_cov(&next).at_end, "{next:#}");
            break;
        }
        assert!(scrolled_by(&next) > 0.0, "{next:#}");
    }
    assert!(ended, "\"End of feed\" was never reported");
    assert_eq!(posts, (1..=100).collect::<BTreeSet<u32>>());
    let again = next_screen(&h, None).await;
    assert_eq!(scrolled_by(&again), 0.0, "{again:#}");
    assert!(at_end(&again), "{again:#}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_snapshot_of_the_whole_page_has_no_coverage_line_and_one_that_leaves_something_out_has() {
    let h = harness();
    h.ok("navigate", json!({ "url": h.url("page-a.html") }))
        .await;
    let whole = h.ok("snapshot", json!({})).await;
    // All of it seen, nothing cut, no scroll container: the line would say nothing.
    let cov = page_cov(&whole);
    assert!(cov.unseen.is_empty(), "{whole:#}");
    assert!(
        whole["data"]["coverage"]["containers"]
            .as_array()
            .is_none_or(Vec::is_empty),
        "{whole:#}"
    );
    assert!(
        whole["data"].get("truncated").is_none_or(|t| t == false),
        "{whole:#}"
    );
    let text = tools::render_json("snapshot", &whole);
    assert!(!text.contains("# coverage"), "{text}");
    // A page read in part keeps it.
    let article = open(&h, "article").await;
    assert!(coverage_line(&article).starts_with("# coverage: seen 0–"));
    h.shutdown().await;
}
