// Finds `text` in the page as a browser's find bar does: the next match after the
// selection (the previous one, `backwards`) is selected and scrolled into view, case
// aside, wrapping around. Answers how many matches the page's visible text holds and
// whether one was selected.
function findText(text, backwards) {
  const needle = String(text).toLowerCase();
  let count = 0;
  if (needle) {
    const haystack = (document.body ? document.body.innerText : "").toLowerCase();
    for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
      count += 1;
    }
  }
  const found = needle ? window.find(String(text), false, Boolean(backwards), true, false, false, false) : false;
  return { count, found };
}
