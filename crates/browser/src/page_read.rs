//! Reading a page as text or HTML under a character budget.

use cdp::Deadline;

use crate::script::{PAGE_HTML, PAGE_TEXT, PING};
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
        let read = self.call_script(&PAGE_TEXT, Vec::new(), deadline).await?;
        Ok(clip(read, max_chars))
    }

    /// `outerHTML` of the main document, at most `max_chars` characters, secret fields'
    /// values blank (`js/page_html.js`).
    pub async fn read_html(&self, max_chars: usize, deadline: Deadline) -> Result<PageHtml, Error> {
        let secret = serde_json::json!(cdp::secret_field_selector());
        let read = self.call_script(&PAGE_HTML, vec![secret], deadline).await?;
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

/// What `page_text.js` (`text`) and `page_html.js` (`html`) answer.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct PageRead {
    #[serde(alias = "html")]
    text: String,
    url: String,
    title: String,
}

fn clip(read: PageRead, max_chars: usize) -> PageText {
    let (text, total_chars) = clip_chars(&read.text, max_chars);
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
