"""Opens a HAR with haralyzer and checks it holds the page's requests.

Usage: check.py FILE PAGE_URL
"""
import json
import sys

from haralyzer import HarParser


def main(path, page_url):
    with open(path, encoding="utf-8") as f:
        parser = HarParser(json.load(f))
    pages = parser.pages
    if not pages:
        sys.exit("reader-check: no page in the HAR")
    entries = [entry for page in pages for entry in page.entries]
    urls = [entry.url for entry in entries]
    for needed in (page_url, "/logs-app.js", "/status/404", "http://127.0.0.1:1/refused"):
        if not any(needed in url for url in urls):
            sys.exit(f"reader-check: no request for {needed} among {urls}")
    for entry in entries:
        # Read what a reader reads: each would raise on a malformed entry.
        _ = (entry.status, entry.request.method, entry.request.headers,
             entry.response.headers, entry.time, entry.timings, entry.startTime)
    secret = [e.url for e in entries if "sekret" in json.dumps(e.raw_entry)]
    if secret:
        sys.exit(f"reader-check: a secret reached the HAR: {secret}")
    statuses = sorted({entry.status for entry in entries})
    print(f"reader-check: haralyzer read {len(pages)} page(s), {len(entries)} entries, "
          f"statuses {statuses}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
