//! `candor config`: the file read, then each key's value and where it came from, as text
//! or as JSON.

use serde_json::{Value, json};

use super::{Config, KEYS, Source};

impl Config {
    /// What `candor config` prints: the file read, then each key's value and source.
    pub fn report(&self) -> String {
        let mut out = match &self.file {
            Some(path) => format!("# config file: {}\n", path.display()),
            None => "# config file: none (candor.toml, $CANDOR_CONFIG or --config)\n".into(),
        };
        let rows: Vec<(String, &Source)> = KEYS
            .iter()
            .filter_map(|key| {
                self.shown(key.name)
                    .map(|(value, source)| (format!("{} = {value}", key.name), source))
            })
            .collect();
        let width = rows.iter().map(|(row, _)| row.len()).max().unwrap_or(0);
        for (row, source) in rows {
            out.push_str(&format!("{row:width$}  # {source}\n"));
        }
        out
    }

    /// `candor --json config`: the file read, then each key's value and source.
    pub fn report_json(&self) -> Value {
        let keys: Vec<Value> = KEYS
            .iter()
            .map(|key| {
                let source = self
                    .shown(key.name)
                    .map(|(_, source)| source.to_string())
                    .unwrap_or_default();
                json!({ "key": key.name, "value": self.json_of(key.name), "source": source })
            })
            .collect();
        json!({ "file": self.file.as_ref().map(|p| p.display().to_string()), "keys": keys })
    }
}
