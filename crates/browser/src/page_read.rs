//! Reading a page as text or HTML under a character budget. The page clips
//! (`js/page_read.js`): what crosses the connection is the budget, not the page, so a
//! page of hundreds of megabytes reads as quickly as its text or markup can be made.

use cdp::Deadline;

use serde_json::json;

use crate::{Error, Tab};

/// The visible text of a page, clipped to a budget.
#[derive(Debug, Clone)]
pub struct PageText {
    pub text: String,
    pub truncated: bool,
    /// Characters (Unicode scalar values) before clipping.
    pub total_chars: usize,
    pub url: String,
    pub title: String,
}

/// The serialised document, clipped to a budget.
pub type PageHtml = PageText;

impl Tab {
    /// `innerText` of the main document, at most `max_chars` characters.
    pub async fn read_text(&self, max_chars: usize, deadline: Deadline) -> Result<PageText, Error> {
        self.read_page("text", max_chars, deadline).await
    }

    /// `outerHTML` of the main document, at most `max_chars` characters, secret fields'
    /// values blank (`js/page_read.js`).
    pub async fn read_html(&self, max_chars: usize, deadline: Deadline) -> Result<PageHtml, Error> {
        self.read_page("html", max_chars, deadline).await
    }

    async fn read_page(
        &self,
        mode: &str,
        max_chars: usize,
        deadline: Deadline,
    ) -> Result<PageText, Error> {
        let secret = cdp::secret_field_selector();
        let arguments = vec![json!(mode), json!(max_chars), json!(secret)];
        let read = self.call_script(&PAGE_READ, arguments, deadline).await?;
        Ok(clip(read, max_chars))
    }

    /// `Runtime.evaluate("1")` in the page: the bare cost of one CDP round trip.
    pub async fn evaluate_one(&self, deadline: Deadline) -> Result<(), Error> {
        let command = cdp::protocol::runtime::Evaluate {
            expression: "1".into(),
            return_by_value: Some(true),
            ..Default::default()
        };
        self.session().call(&command, deadline).await?;
        Ok(())
    }

    /// One round trip into the page; proves it runs script.
    pub async fn ping(&self, deadline: Deadline) -> Result<(), Error> {
        self.call_script(&PING, Vec::new(), deadline)
            .await
            .map(drop)
    }
}

/// What `page_read.js` answers: the text clipped in the page, and the whole's length.
#[derive(Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PageRead {
    text: String,
    total_chars: usize,
    url: String,
    title: String,
}

/// The page's read as the agent gets it. Clipped again: the script runs beside the
/// page's own, which may have changed what it relies on.
fn clip(read: PageRead, max_chars: usize) -> PageText {
    let (text, sent) = clip_chars(&read.text, max_chars);
    let total_chars = read.total_chars.max(sent);
    PageText {
        truncated: total_chars > max_chars,
        text: text.to_string(),
        total_chars,
        url: read.url,
        title: read.title,
    }
}

/// The first `max` characters of `text` (never splitting one) and the total count.
pub(crate) fn clip_chars(text: &str, max: usize) -> (&str, usize) {
    let end = text
        .char_indices()
        .nth(max)
        .map_or(text.len(), |(index, _)| index);
    (&text[..end], text.chars().count())
}

/// `{text, totalChars, url, title}`: the visible text of the document (`innerText`) or
/// the serialised document — secret fields' values blank, given the selector of the one
/// definition of a secret field (`cdp::secret_field_selector`) — clipped in the page to a
/// number of characters.
pub(crate) const PAGE_READ: crate::script::Script<crate::page_read::PageRead> =
    crate::script::script!("page_read" => crate::page_read::PageRead);
/// `1`: the cheapest possible round trip into the page (benchmarks, liveness).
pub(crate) const PING: crate::script::Script<u8> = crate::script::script!("ping" => u8);

#[cfg(test)]
mod tests {
    use super::clip_chars;

    #[test]
    fn clipping_counts_characters_not_bytes() {
        assert_eq!(clip_chars("héllo", 2), ("hé", 5));
        assert_eq!(clip_chars("漢字かな", 3), ("漢字か", 4));
        assert_eq!(clip_chars("abc", 3), ("abc", 3));
        assert_eq!(clip_chars("abc", 10), ("abc", 3));
        assert_eq!(clip_chars("", 0), ("", 0));
        assert_eq!(clip_chars("ab", 0), ("", 2));
    }
}
