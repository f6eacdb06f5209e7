// The document as text (`innerText`, as the user sees it: hidden nodes left out) or as
// HTML (serialised, doctype included), clipped here to `maxChars` characters (code
// points: a surrogate pair is one) so a page of any size sends only what was asked for;
// `totalChars` counts the whole. The title is clipped as Chromium clips a tab's.
//
// A secret field (one that `secret`, the CSS selector of the one definition of a secret
// field, matches) can hold its value in the markup — a framework's controlled input
// mirrors it into its `value` attribute — so when one does, the html mode serialises a
// copy with those values blank. The copy is made in a document of its own that has no
// window: nothing in it runs or loads (no custom element's constructor, no image), and
// the page never sees it.
function pageRead(mode, maxChars, secret) {
  let whole = "";
  if (mode === "html") {
    const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "";
    const holds = (element) => element.hasAttribute("value") || (element.localName === "textarea" && element.textContent);
    let root = document.documentElement;
    if (root && Array.from(root.querySelectorAll(secret)).some(holds)) {
      root = document.implementation.createHTMLDocument("").importNode(root, true);
      for (const element of root.querySelectorAll(secret)) {
        if (element.hasAttribute("value")) element.setAttribute("value", "");
        if (element.localName === "textarea") element.textContent = "";
      }
    }
    whole = doctype + (root ? root.outerHTML : "");
  } else {
    const root = document.body || document.documentElement;
    whole = root ? root.innerText : "";
  }
  // Counted by the engine's regular expressions, not a loop, and without a copy of the
  // whole: a text of hundreds of megabytes with no surrogate (the usual case) is counted
  // at once.
  const pairs = /[\ud800-\udbff][\udc00-\udfff]/g;
  const totalChars = whole.length - (whole.match(pairs) || []).length;
  let end = 0;
  for (let chars = 0; chars < maxChars && end < whole.length; chars++) {
    const unit = whole.charCodeAt(end);
    const next = whole.charCodeAt(end + 1);
    end += unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return {
    text: whole.slice(0, end),
    totalChars,
    url: location.href,
    title: String(document.title).slice(0, 4096),
  };
}
