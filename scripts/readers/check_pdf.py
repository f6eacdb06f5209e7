"""Opens a PDF with pypdf and checks its pages and that its text holds the page's heading.

Usage: check_pdf.py FILE HEADING PAGES (PAGES 0: any number, at least one)
"""
import sys

from pypdf import PdfReader


def main(path, heading, pages):
    reader = PdfReader(path)
    count = len(reader.pages)
    if count < 1 or (pages and count != pages):
        sys.exit(f"reader-check: {path} has {count} page(s), not {pages or 'at least 1'}")
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    if heading not in text:
        sys.exit(f"reader-check: {heading!r} is not in the text of {path}: {text[:200]!r}")
    print(f"reader-check: pypdf read {count} page(s) of {path.rsplit('/', 1)[-1]}, "
          f"{len(text)} characters, the heading among them")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
