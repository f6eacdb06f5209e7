// The document as text (`innerText`, as the user sees it: hidden nodes left out) or as
// HTML (serialised, doctype included), clipped here to `maxChars` characters (code
// points: a surrogate pair is one) so a page of any size sends only what was asked for;
// `totalChars` counts the whole. The title is clipped as Chromium clips a tab's.
function pageRead(mode, maxChars) {
  let whole = "";
  if (mode === "html") {
    const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "";
    const root = document.documentElement;
    whole = doctype + (root ? root.outerHTML : "");
  } else {
    const root = document.body || document.documentElement;
    whole = root ? root.innerText : "";
  }
  let chars = 0;
  let end = -1;
  for (let i = 0; i < whole.length; i++, chars++) {
    if (chars === maxChars) end = i;
    const unit = whole.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < whole.length) {
      const next = whole.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return {
    text: end < 0 ? whole : whole.slice(0, end),
    totalChars: chars,
    url: location.href,
    title: String(document.title).slice(0, 4096),
  };
}
