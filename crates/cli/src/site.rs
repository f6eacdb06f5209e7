//! The built-in demo site: a few pages compiled into the binary, so `candor demo` needs no
//! network and no checkout; served on 127.0.0.1 by the one static server (`static-site`).

use static_site::{Files, StartError, StaticSite};

const PAGES: &[(&str, &str)] = &[
    ("index.html", include_str!("../site/index.html")),
    ("catalog.html", include_str!("../site/catalog.html")),
    ("about.html", include_str!("../site/about.html")),
    ("login.html", include_str!("../site/login.html")),
    ("checkout.html", include_str!("../site/checkout.html")),
    ("stuck.html", include_str!("../site/stuck.html")),
];

/// Serves the demo site on `127.0.0.1:0` until the returned site is dropped.
pub fn start() -> Result<StaticSite, StartError> {
    StaticSite::start(Files::Embedded(PAGES))
}
