//! A page printed to PDF (docs/observation.md#pdf): `Page.printToPDF` on the paper asked
//! for, and how many pages came out. Refused on an error page, as a screenshot is: a PDF
//! of Chromium's error page is no print of the page asked for.

use base64::Engine as _;
use cdp::Deadline;
use cdp::protocol::page;

use crate::{Error, Tab};

/// A paper size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Paper {
    #[default]
    Letter,
    A4,
    Legal,
}

impl Paper {
    /// Width and height in inches, portrait.
    fn inches(self) -> (f64, f64) {
        match self {
            Paper::Letter => (8.5, 11.0),
            Paper::A4 => (8.27, 11.69),
            Paper::Legal => (8.5, 14.0),
        }
    }
}

/// How to print.
#[derive(Debug, Clone, Default)]
pub struct PdfOptions {
    pub paper: Paper,
    pub landscape: bool,
    /// Print background colours and images.
    pub background: bool,
    /// Which pages, `1-3,5` (1-based); `None`: all.
    pub pages: Option<String>,
}

/// A printed PDF.
#[derive(Debug, Clone)]
pub struct Pdf {
    pub data: Vec<u8>,
    /// How many pages it has.
    pub pages: usize,
}

/// Whether `ranges` is a list of pages and page ranges, `1-3, 5`, each from 1.
pub fn valid_page_ranges(ranges: &str) -> bool {
    let page = |p: &str| p.trim().parse::<u32>().is_ok_and(|n| n >= 1);
    !ranges.trim().is_empty()
        && ranges.split(',').all(|part| match part.split_once('-') {
            Some((from, to)) => {
                page(from) && page(to) && from.trim().parse::<u32>().ok() <= to.trim().parse().ok()
            }
            None => page(part),
        })
}

/// How many pages a PDF has: its page objects (`/Type /Page`, not `/Pages`). Chromium's
/// PDFs keep their object dictionaries uncompressed, where this is read.
fn page_count(pdf: &[u8]) -> usize {
    const PAGE: &[u8] = b"/Type /Page";
    pdf.windows(PAGE.len() + 1)
        .filter(|w| w.starts_with(PAGE) && w[PAGE.len()] != b's')
        .count()
}

impl Tab {
    /// Prints the page to PDF. A page range past the document's end is refused by the
    /// browser (`BrowserRefused`, its message saying so).
    pub async fn pdf(&self, options: &PdfOptions, deadline: Deadline) -> Result<Pdf, Error> {
        self.check_loaded()?;
        let (width, height) = options.paper.inches();
        let printed = self
            .session()
            .call(
                &page::PrintToPdf {
                    landscape: options.landscape,
                    print_background: options.background,
                    paper_width: width,
                    paper_height: height,
                    page_ranges: options.pages.clone().unwrap_or_default(),
                },
                deadline,
            )
            .await?;
        let data = base64::engine::general_purpose::STANDARD
            .decode(printed.data.as_bytes())
            .map_err(|e| Error::Protocol {
                method: "Page.printToPDF".into(),
                message: format!("its PDF is not base64: {e}"),
            })?;
        let pages = page_count(&data);
        Ok(Pdf { data, pages })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_ranges_are_pages_and_ranges_from_one() {
        for good in ["1", "1-3", "2, 4-5", " 1 - 2 ,3"] {
            assert!(valid_page_ranges(good), "{good}");
        }
        for bad in ["", "0", "3-1", "a", "1-", "1,,2", "-2"] {
            assert!(!valid_page_ranges(bad), "{bad}");
        }
    }

    #[test]
    fn pages_are_counted_without_the_page_tree() {
        let pdf = b"<< /Type /Pages /Count 2 >> << /Type /Page /Parent 1 0 R >> << /Type /Page\n>>";
        assert_eq!(page_count(pdf), 2);
    }
}
