// The serialised document, doctype included.
function pageHtml() {
  const doctype = document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "";
  const root = document.documentElement;
  return {
    html: doctype + (root ? root.outerHTML : ""),
    url: location.href,
    title: document.title,
  };
}
