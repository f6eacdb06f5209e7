//! Inputs on pages nobody tuned for: fill on inputs whose value has its own format
//! (date, time, colour, range, number…), type into a page that consumes the keys, and
//! pointer actions whose target is covered, moving or not shown for a moment.

use serde_json::json;

use crate::harness::{Harness, assert_not_started, page_text};

async fn log(h: &Harness) -> Vec<String> {
    let read = h.ok("eval", json!({ "expression": "window.__log" })).await;
    read["data"]["value"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// Fills the native.html input `id` with `text`; it must read back as `value`, and the
/// page's own `input` and `change` listeners must have seen that value.
async fn check_fill(h: &Harness, id: &str, text: &str, value: &str) {
    let filled = h
        .ok(
            "act",
            json!({ "action": "fill", "selector": format!("#{id}"), "text": text, "snapshot": false }),
        )
        .await;
    assert_eq!(filled["data"]["inputValueVerified"], true, "{id} {text}");
    assert_eq!(filled["data"]["valueAfter"], value, "{id} {text}");
    let read = h
        .ok(
            "eval",
            json!({ "expression": format!("document.getElementById('{id}').value") }),
        )
        .await;
    assert_eq!(read["data"]["value"], value, "{id} {text}");
    let log = log(h).await;
    for event in ["input", "change"] {
        let entry = format!("{id}:{event}:{value}");
        assert_eq!(
            log.last_chunk::<2>().map(|l| l.contains(&entry)),
            Some(true),
            "{id} {text}: {log:?}"
        );
    }
}

#[tokio::test]
async fn fill_takes_each_typed_inputs_own_value_format_and_the_page_hears_input_and_change() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/native.html") }))
        .await;
    for (id, value) in [
        ("date", "2015-03-10"),
        ("time", "15:16"),
        ("dtl", "2015-03-10T15:16"),
        ("month", "2015-03"),
        ("week", "2015-W11"),
        ("color", "#ff0000"),
        ("range", "30"),
        ("number", "250"),
    ] {
        check_fill(&h, id, value, value).await;
    }
    h.shutdown().await;
}

#[tokio::test]
async fn fill_takes_the_forms_people_type_into_typed_inputs_and_sets_the_value_format() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/native.html") }))
        .await;
    for (id, text, value) in [
        ("date", "03/10/2015", "2015-03-10"),
        ("date", "3/17/2015", "2015-03-17"),
        ("date", "March 18, 2015", "2015-03-18"),
        ("time", "3:16 PM", "15:16"),
        ("time", "15:16:30", "15:16:30"),
        ("time", "12:05 am", "00:05"),
        ("dtl", "03/10/2015 3:16 PM", "2015-03-10T15:16"),
        ("dtl", "2015-03-17 09:45", "2015-03-17T09:45"),
        ("month", "April 2015", "2015-04"),
        ("month", "05/2015", "2015-05"),
        ("week", "Week 12, 2015", "2015-W12"),
        ("week", "03/25/2015", "2015-W13"),
        ("color", "#0F0", "#00ff00"),
        ("color", "navy", "#000080"),
        ("color", "rgb(255, 165, 0)", "#ffa500"),
        ("range", "42.0", "42"),
        ("number", "1,000", "1000"),
        ("number", "2.50", "2.5"),
    ] {
        check_fill(&h, id, text, value).await;
    }
    h.shutdown().await;
}

#[tokio::test]
async fn a_value_in_no_accepted_form_is_refused_naming_the_formats_before_anything_is_sent() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/native.html") }))
        .await;
    for (id, text, named) in [
        ("date", "next tuesday", "03/10/2015"),
        ("date", "02/30/2015", "2015-03-10"),
        ("time", "25:00", "3:16 PM"),
        ("dtl", "03/10/2015", "2015-03-10T15:16"),
        ("month", "2015-13", "March 2015"),
        ("week", "2015-W54", "2015-W11"),
        ("color", "reddish", "#ff0000"),
        ("range", "loud", "a number"),
        ("number", "ten", "a number"),
    ] {
        let refused = h
            .refused(
                "act",
                json!({ "action": "fill", "selector": format!("#{id}"), "text": text }),
                "INVALID_PARAMS",
            )
            .await
            .to_json();
        assert_not_started(&refused);
        let message = refused["message"].as_str().unwrap();
        assert!(
            message.contains(named) && message.contains(text),
            "{message}"
        );
    }
    // Nothing reached the page: no listener ran.
    assert_eq!(log(&h).await, ["ready"]);
    h.shutdown().await;
}

#[tokio::test]
async fn a_range_that_clamps_a_value_beyond_its_max_is_an_input_mismatch() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/native.html") }))
        .await;
    let mismatch = h
        .fails(
            "act",
            json!({ "action": "fill", "selector": "#range", "text": "150" }),
            "INPUT_MISMATCH",
        )
        .await;
    assert_eq!(mismatch["data"]["expected"], "150");
    assert_eq!(mismatch["data"]["actual"], "100");
    assert_eq!(mismatch["execution"]["actionStatus"], "completed");
    assert_eq!(mismatch["execution"]["retrySafe"], false);
    // A range takes no keystrokes: type is refused, pointing at fill.
    let refused = h
        .refused(
            "act",
            json!({ "action": "type", "selector": "#range", "text": "5" }),
            "INVALID_PARAMS",
        )
        .await
        .to_json();
    assert!(
        refused["message"].as_str().unwrap().contains("fill"),
        "{refused:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn keys_typed_into_a_date_field_fill_its_parts_and_into_a_number_field_append() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/native.html") }))
        .await;
    let typed = h
        .ok(
            "act",
            json!({ "action": "type", "selector": "#date", "text": "03/10/2015" }),
        )
        .await;
    assert_eq!(typed["data"]["keysSent"], "03/10/2015");
    assert_eq!(typed["data"]["valueAfter"], "2015-03-10", "{typed:#}");
    assert_eq!(typed["data"]["inputValueVerified"], true);

    // Keys typed into a number field append, as in any text.
    check_fill(&h, "number", "12", "12").await;
    let typed = h
        .ok(
            "act",
            json!({ "action": "type", "selector": "#number", "text": "3" }),
        )
        .await;
    assert_eq!(typed["data"]["valueAfter"], "123", "{typed:#}");
    assert_eq!(typed["data"]["inputValueVerified"], true);
    h.shutdown().await;
}

#[tokio::test]
async fn type_into_a_terminal_that_consumes_keys_is_ok_and_reports_the_keys_and_what_the_field_holds()
 {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/terminal.html") }))
        .await;
    let typed = h
        .ok(
            "act",
            json!({ "action": "type", "role": "textbox", "name": "Command", "text": "ls" }),
        )
        .await;
    assert_eq!(typed["execution"]["actionStatus"], "completed");
    assert_eq!(typed["data"]["keysSent"], "ls");
    // The page clears the field on every key: it holds at most the last one.
    let after = typed["data"]["valueAfter"].as_str().unwrap();
    assert_ne!(after, "ls", "{typed:#}");
    assert_eq!(typed["data"]["inputValueVerified"], false);

    h.ok("act", json!({ "action": "press", "keys": "Enter" }))
        .await;
    let text = page_text(&h).await;
    assert!(text.contains("$ ls"), "{text}");
    assert!(text.contains("file-a.txt"), "{text}");
    assert!(log(&h).await.contains(&"cmd:ls".to_string()));

    h.shutdown().await;
}

#[tokio::test]
async fn typed_password_keys_are_reported_only_by_their_count() {
    let h = Harness::new();
    h.ok("navigate", json!({ "url": h.url("act-form.html") }))
        .await;
    let typed = h
        .ok(
            "act",
            json!({ "action": "type", "selector": "#secret", "text": "hunter22" }),
        )
        .await;
    let shown = typed.to_string();
    assert!(!shown.contains("hunt"), "{shown}");
    assert_eq!(typed["data"]["keysSent"], "(8 characters, not shown)");
    // maxlength 4 kept four of them.
    assert_eq!(typed["data"]["valueAfter"], "(4 characters, not shown)");
    h.shutdown().await;
}

#[tokio::test]
async fn a_click_waits_out_a_fading_overlay_and_lands_on_the_button_under_it() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/overlay.html") }))
        .await;
    // No settle and no diff: the next command starts while the overlay still fades.
    let picked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Pick", "settleMs": 0, "snapshot": false }),
        )
        .await;
    // A target actionable at once is not waited for.
    assert!(
        picked["data"].get("actionableWaitMs").is_none(),
        "{picked:#}"
    );
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Submit" }),
        )
        .await;
    if let Some(waited) = clicked["data"]["actionableWaitMs"].as_u64() {
        assert!(waited <= 1_500, "{clicked:#}");
    }
    assert!(page_text(&h).await.contains("submitted"));
    // The click reached Submit only once the overlay had gone.
    let log = log(&h).await;
    let hidden = log.iter().position(|l| l == "overlay:hidden");
    let submitted = log.iter().position(|l| l == "submitted");
    assert!(hidden.is_some() && hidden < submitted, "{log:?}");
    h.shutdown().await;
}

#[tokio::test]
async fn a_cookie_banner_that_stays_is_refused_after_the_budget_naming_the_banner_and_the_wait() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/overlay.html") }))
        .await;
    let refused = h
        .refused(
            "act",
            json!({ "action": "click", "role": "button", "name": "Subscribe" }),
            "ELEMENT_OCCLUDED",
        )
        .await
        .to_json();
    assert_not_started(&refused);
    let covering = refused["data"]["coveringElement"].as_str().unwrap();
    assert!(covering.contains("cookie-banner"), "{covering}");
    let message = refused["message"].as_str().unwrap();
    assert!(
        !message.contains("cookie-banner") && message.contains("waited"),
        "{message}"
    );
    assert!(
        refused["execution"]["durationMs"].as_u64().unwrap() >= 1_000,
        "{refused:#}"
    );

    // A budget of its own, and none at all.
    let shorter = h
        .refused(
            "act",
            json!({ "action": "click", "role": "button", "name": "Subscribe", "actionTimeoutMs": 300 }),
            "ELEMENT_OCCLUDED",
        )
        .await
        .to_json();
    assert!(shorter["execution"]["durationMs"].as_u64().unwrap() >= 300);
    assert!(shorter["message"].as_str().unwrap().contains("waited"));
    let at_once = h
        .refused(
            "act",
            json!({ "action": "click", "role": "button", "name": "Subscribe", "actionTimeoutMs": 0 }),
            "ELEMENT_OCCLUDED",
        )
        .await
        .to_json();
    assert!(!at_once["message"].as_str().unwrap().contains("waited"));
    h.refused(
        "act",
        json!({ "action": "click", "role": "button", "name": "Subscribe", "actionTimeoutMs": 600_000 }),
        "INVALID_PARAMS",
    )
    .await;
    // A command with less time than the budget still ends in the refusal, not its own
    // timeout.
    let short_command = h
        .engine
        .call(
            "act",
            json!({ "action": "click", "role": "button", "name": "Subscribe" }),
            Some(std::time::Duration::from_millis(800)),
        )
        .await
        .to_json();
    assert_eq!(
        short_command["code"], "ELEMENT_OCCLUDED",
        "{short_command:#}"
    );
    assert!(!log(&h).await.contains(&"subscribed".to_string()));
    h.shutdown().await;
}

#[tokio::test]
async fn a_day_picked_in_a_datepicker_then_submit_at_once_waits_for_the_calendar_to_fade() {
    let h = Harness::with_eval();
    h.ok(
        "navigate",
        json!({ "url": h.url("widgets/datepicker.html") }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "textbox", "name": "Start date" }),
    )
    .await;
    // The calendar fades out over 400 ms after the pick; no settle waits for it here.
    h.ok(
        "act",
        json!({ "action": "click", "role": "link", "name": "17", "exact": true, "settleMs": 0, "snapshot": false }),
    )
    .await;
    h.ok(
        "act",
        json!({ "action": "click", "role": "button", "name": "Submit" }),
    )
    .await;
    let result = h
        .ok(
            "eval",
            json!({ "expression": "document.getElementById('result').textContent" }),
        )
        .await;
    assert_eq!(result["data"]["value"], "submitted: 03/17/2015");
    h.shutdown().await;
}

#[tokio::test]
async fn a_moving_button_is_clicked_once_it_has_come_to_rest() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/overlay.html") }))
        .await;
    // A button that slides 300 px over 600 ms; its click says whether it had arrived.
    h.ok(
        "eval",
        json!({ "expression": r#"
            const b = document.createElement("button");
            b.textContent = "Moving";
            b.style.cssText = "position:fixed; top:120px; left:20px; transition:left 600ms linear";
            b.addEventListener("click", () => window.__log.push(
                b.getBoundingClientRect().left === 320 ? "clicked:at-rest" : "clicked:moving"));
            document.body.append(b);
            b.getBoundingClientRect();
            b.style.left = "320px";
            return true;
        "# }),
    )
    .await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Moving" }),
        )
        .await;
    assert!(
        log(&h).await.contains(&"clicked:at-rest".to_string()),
        "{clicked:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_button_faded_in_a_moment_later_is_waited_for_and_clicked() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/overlay.html") }))
        .await;
    h.ok(
        "eval",
        json!({ "expression": r#"
            const b = document.createElement("button");
            b.textContent = "Later";
            b.id = "later";
            b.style.opacity = "0";
            b.addEventListener("click", () => window.__log.push("later"));
            document.querySelector("main").append(b);
            setTimeout(() => { b.style.opacity = "1"; }, 300);
            return true;
        "# }),
    )
    .await;
    h.ok("act", json!({ "action": "click", "selector": "#later" }))
        .await;
    assert!(log(&h).await.contains(&"later".to_string()));

    // One that never shows is refused after the budget, saying how long it waited.
    h.ok(
        "eval",
        json!({ "expression": r#"
            const b = document.createElement("button");
            b.id = "never";
            b.textContent = "Never";
            b.style.opacity = "0";
            document.querySelector("main").append(b);
            return true;
        "# }),
    )
    .await;
    let refused = h
        .refused(
            "act",
            json!({ "action": "click", "selector": "#never", "actionTimeoutMs": 200 }),
            "ELEMENT_NOT_VISIBLE",
        )
        .await
        .to_json();
    assert!(
        refused["message"].as_str().unwrap().contains("waited"),
        "{refused:#}"
    );
    h.shutdown().await;
}

#[tokio::test]
async fn a_colour_transition_on_the_target_does_not_hold_the_click() {
    let h = Harness::with_eval();
    h.ok("navigate", json!({ "url": h.url("widgets/overlay.html") }))
        .await;
    h.ok(
        "eval",
        json!({ "expression": r#"
            const b = document.getElementById("pick");
            b.style.transition = "background-color 5s linear";
            b.getBoundingClientRect();
            b.style.backgroundColor = "rgb(200, 0, 0)";
            return document.getAnimations().length;
        "# }),
    )
    .await;
    let clicked = h
        .ok(
            "act",
            json!({ "action": "click", "role": "button", "name": "Pick", "settleMs": 0 }),
        )
        .await;
    assert!(
        clicked["data"].get("actionableWaitMs").is_none(),
        "{clicked:#}"
    );
    h.shutdown().await;
}
