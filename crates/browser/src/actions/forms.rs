//! `<select>` options and file uploads (through the input, or through an intercepted
//! file chooser).

use std::path::PathBuf;
use std::time::Instant;

use cdp::protocol::{dom, page};
use serde_json::{Value, json};

use super::{CHOOSER_LIMIT, Run};
use crate::Error;
use crate::script;
use crate::snapshot::{Located, Locator};

impl Run<'_> {
    pub(super) async fn select(
        &mut self,
        target: &Located,
        locator: &Locator,
        values: &[String],
    ) -> Result<Value, Error> {
        // The script checks every option before changing anything, so a refusal here
        // has dispatched nothing.
        let result = self
            .tab
            .call_on_node(
                &target.session,
                target.backend_id,
                &script::ELEMENT_SELECT_OPTIONS,
                vec![json!(values)],
                self.deadline,
            )
            .await?;
        match result["error"].as_str() {
            None => {
                self.dispatched = true;
                Ok(result["selected"].clone())
            }
            Some("not-select") => Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: format!(
                    "a {} is not a <select>; click its options instead",
                    target.role
                ),
            }),
            Some("single") => Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: "it takes one option; several were given".into(),
            }),
            Some(_) => Err(Error::ElementNotFound {
                locator: format!("{locator} options {values:?}"),
                reason: format!(
                    "no option {} (some there: {})",
                    result["missing"], result["available"]
                ),
            }),
        }
    }

    pub(super) async fn upload(
        &mut self,
        target: &Located,
        locator: &Locator,
        files: &[PathBuf],
        via_trigger: bool,
    ) -> Result<Value, Error> {
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let (session, input) = if via_trigger {
            let session = self.tab.session().clone();
            session
                .call(
                    &page::SetInterceptFileChooserDialog { enabled: true },
                    self.deadline,
                )
                .await?;
            let opened_before = self.tab.state().file_choosers;
            let clicked = async {
                let (x, y) = self.pointer_target(target, locator, true).await?;
                self.mouse(x, y, 1).await?;
                let limit = self.deadline.within(CHOOSER_LIMIT);
                self.tab
                    .wait_state("a file chooser to open", limit, Instant::now(), |s| {
                        s.file_choosers > opened_before
                    })
                    .await
            }
            .await;
            let _ = session
                .call(
                    &page::SetInterceptFileChooserDialog { enabled: false },
                    self.deadline,
                )
                .await;
            let state = clicked?;
            let input = state
                .file_chooser_input
                .ok_or_else(|| Error::ElementNotFound {
                    locator: locator.to_string(),
                    reason: "the file chooser it opened names no input".into(),
                })?;
            (session, input)
        } else {
            self.require_shown_or_file_input(target, locator).await?;
            (target.session.clone(), target.backend_id)
        };
        self.dispatched = true;
        session
            .call(
                &dom::SetFileInputFiles {
                    files: files.clone(),
                    backend_node_id: input,
                },
                self.deadline,
            )
            .await?;
        let readback = self
            .tab
            .call_on_node(
                &session,
                input,
                &script::ELEMENT_FILES,
                Vec::new(),
                self.deadline,
            )
            .await?;
        Ok(json!({
            "fileSelected": readback["count"].as_u64() == Some(files.len() as u64),
            "inputReadback": readback,
            "uploadCompleted": "unknown",
            "frameworkAccepted": "unknown",
        }))
    }

    /// A file input may be visually hidden behind a styled label; it must be a file input.
    pub(super) async fn require_shown_or_file_input(
        &self,
        target: &Located,
        locator: &Locator,
    ) -> Result<(), Error> {
        let value = self
            .tab
            .call_on_node(
                &target.session,
                target.backend_id,
                &script::ELEMENT_VALUE,
                Vec::new(),
                self.deadline,
            )
            .await?;
        if value["type"] != "file" {
            return Err(Error::InvalidParams {
                what: locator.to_string(),
                reason: "it is not an <input type=file>; give the button that opens the chooser with trigger:true".into(),
            });
        }
        Ok(())
    }
}
