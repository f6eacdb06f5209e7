//! Every tool schema costs the agent tokens on every turn (docs/faces.md#mcp), so the size of
//! `tools/list` is held down by a test: counted in cl100k_base tokens, what a model is
//! given (name, description, input schema per tool) and the whole response as a client
//! receives it (annotations and output schemas included).

/// What a model is given of the tool list, at most: 2,000 for sixteen tools (1,990 used),
/// raised by what `browser_logs` costs (171) when it came, then by `browser_pdf`'s 75,
/// `act`'s point (`x`, `y`: 27), `screenshot`'s `marks` (15) and `browser_state`'s 53,
/// every description of each cut to the fewest words a model needs.
const MODEL_VISIBLE_MAX: usize = 2_338;
/// The whole `tools/list` response, at most: output schemas (shapes only) and
/// annotations ride in it beside what a model is given; 4,821 before it was trimmed,
/// 4,750 for sixteen tools, raised by `browser_logs`'s share, then `browser_pdf`'s (202),
/// the point's (27), the marks' (21) and `browser_state`'s (230).
const WHOLE_MAX: usize = 5_515;

fn tokens(text: &str) -> usize {
    tiktoken_rs::cl100k_base()
        .expect("cl100k_base is built into tiktoken-rs")
        .encode_ordinary(text)
        .len()
}

#[test]
fn what_a_model_is_given_of_the_tool_list_stays_within_its_token_budget() {
    let seen = mcp::model_visible_json();
    let per_tool: Vec<String> = seen
        .lines()
        .map(|line| {
            let name = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|tool| tool["name"].as_str().map(str::to_string))
                .unwrap_or_default();
            format!("{name} {}", tokens(line))
        })
        .collect();
    let total = tokens(&seen);
    eprintln!(
        "tools/list as a model sees it: {total} cl100k tokens ({})",
        per_tool.join(", ")
    );
    assert!(
        total <= MODEL_VISIBLE_MAX,
        "{total} tokens > {MODEL_VISIBLE_MAX}: {}",
        per_tool.join(", ")
    );
    // Every tool is in it, with a description.
    assert_eq!(per_tool.len(), tools::catalogue().len());
    assert!(seen.lines().all(|line| line.contains("\"description\"")));
}

#[test]
fn the_whole_tool_list_response_stays_within_its_token_budget() {
    let whole = mcp::tools_list_json();
    let total = tokens(&whole);
    eprintln!("tools/list response: {total} cl100k tokens");
    assert!(total <= WHOLE_MAX, "{total} tokens > {WHOLE_MAX}");
    // It is the list as sent: output schemas and annotations ride in it.
    assert!(whole.contains("\"outputSchema\"") && whole.contains("\"annotations\""));
}
