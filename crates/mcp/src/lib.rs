//! The MCP stdio face: `tools/list` derived from the catalogue (`browser_<name>`), each
//! call run by the engine and returned as `structuredContent` plus one text block.
//! stdout carries only protocol frames.

use std::sync::Arc;

/// Serves MCP on stdin/stdout until the client goes away (stdin closes).
pub async fn serve_stdio(engine: Arc<tools::Engine>) -> Result<(), String> {
    let _ = engine;
    Err("not yet written".into())
}

/// The `tools/list` result as JSON text, exactly as a client receives it (for size
/// reports).
pub fn tools_list_json() -> String {
    String::new()
}
