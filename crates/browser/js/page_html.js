// The serialised document, doctype included. A secret field (one that `secret`, the CSS
// selector of the one definition of a secret field, matches) can hold its value in the
// markup — a framework's controlled input mirrors it into its `value` attribute — so when
// one does, a copy is serialised with those values blank. The copy is made in a document
// of its own that has no window: nothing in it runs or loads (no custom element's
// constructor, no image), and the page never sees it.
function pageHtml(secret) {
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
  return {
    html: doctype + (root ? root.outerHTML : ""),
    url: location.href,
    title: document.title,
  };
}
