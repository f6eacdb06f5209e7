//! What candor's tests share: a local fixture server and the Chromium to drive.
//!
//! Dev-only. Nothing here touches the network beyond `127.0.0.1`, so tests are hermetic.

mod chromium;
mod http;
mod proxy;
mod server;

pub use chromium::{chromium, chromium_with_port, devtools_port};
pub use http::{http_exchange, http_get};
pub use proxy::ForwardProxy;
pub use server::{ACCOUNT_COOKIE, FixtureServer, SIGN_IN_COOKIE, fixtures_dir};
