// Called on the array `regionElements` returned: what a snapshot needs of each of its
// elements (`all`), in the same order — its nearest listed ancestor, its box in document
// coordinates, its content in order (["t", text, x, y, width, height] for text, ["e", i]
// for listed elements; a shadow root's content first; no text of an element drawn
// invisible), what tells a click target, a clipper or an invisible element, and the role
// (`[role, level]`) `regionElements` knew without asking Chromium, if it did.
function regionFacts() {
  const elements = this.all;
  const known = this.known;
  const index = new Map(elements.map((element, i) => [element, i]));
  const sx = window.scrollX;
  const sy = window.scrollY;
  const range = document.createRange();
  return elements.map((element, i) => {
    let parent = element.parentElement || (element.parentNode && element.parentNode.host) || null;
    while (parent && !index.has(parent)) {
      parent = parent.parentElement || (parent.parentNode && parent.parentNode.host) || null;
    }
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    const hidden = style.visibility !== "visible";
    const content = [];
    const add = (container) => {
      for (let child = container.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === 1 && index.has(child)) {
          content.push(["e", index.get(child)]);
        } else if (child.nodeType === 3 && !hidden && child.data.trim()) {
          range.selectNodeContents(child);
          const r = range.getBoundingClientRect();
          content.push(["t", child.data, r.left + sx, r.top + sy, r.width, r.height]);
        }
      }
    };
    if (element.shadowRoot) add(element.shadowRoot);
    add(element);
    const tag = element.localName;
    return {
      parent: parent ? index.get(parent) : -1,
      box: [box.left + sx, box.top + sy, box.width, box.height],
      tag,
      href: tag === "a" ? element.getAttribute("href") : null,
      type: tag === "input" ? (element.getAttribute("type") || "text").toLowerCase() : null,
      onclick: element.hasAttribute("onclick"),
      pointer: style.cursor === "pointer",
      clips: style.overflowX !== "visible" || style.overflowY !== "visible",
      hidden,
      known: known[i] || null,
      content,
    };
  });
}
