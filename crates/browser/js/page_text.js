// The visible text of the document, as the user sees it (innerText skips hidden nodes).
function pageText() {
  const root = document.body || document.documentElement;
  return {
    text: root ? root.innerText : "",
    url: location.href,
    title: document.title,
  };
}
