//! `Browser` domain.

use serde::{Deserialize, Serialize};

use super::{Empty, command};

#[derive(Debug, Clone, Default, Serialize)]
pub struct GetVersion {}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Version {
    pub protocol_version: String,
    pub product: String,
    pub user_agent: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Close {}

command! {
    GetVersion => "Browser.getVersion", Version;
    Close => "Browser.close", Empty;
}
