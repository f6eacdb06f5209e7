// Called on the array `regionElements` returned: what a snapshot needs of each of its
// elements (`all`), in the same order — its nearest listed ancestor, its box in document
// coordinates, its content in order (["t", text, x, y, width, height, separator] for
// text, ["e", i] for listed elements; a shadow root's content first; no text of an
// element drawn invisible), what tells a click target, a clipper or an invisible element, and the role
// (`[role, level, name]`) `regionElements` knew without asking Chromium, if it did. Inside a
// scroll container, an element also says how many of its element children with a box were
// left out before its first listed child and after its last (`unread`): the rows of a long
// table scrolled out of its pane are counted, not read. `secret` is the CSS selector of the
// one definition of a secret field: an element it matches has its value masked.
function regionFacts(secret) {
  const elements = this.all;
  const known = this.known;
  const index = new Map(elements.map((element, i) => [element, i]));
  const sx = window.scrollX;
  const sy = window.scrollY;
  const range = document.createRange();
  // What separates a text node from the rendered text before it, as a whole read tells
  // it (`text_breaks.rs`): 0 nothing, 1 a space, 2 a line (a block boundary, a `<br>`,
  // the start of the document). Found by walking back through the document.
  const displays = new Map();
  const display = (element) => {
    let value = displays.get(element);
    if (value === undefined) {
      value = getComputedStyle(element).display;
      displays.set(element, value);
    }
    return value;
  };
  const inline = (element) => {
    const value = display(element);
    return value.startsWith("inline") || value === "contents";
  };
  const separator = (text) => {
    let sep = /^\s/.test(text.data) ? 1 : 0;
    let at = text;
    for (;;) {
      if (!at.previousSibling) {
        at = at.parentNode;
        if (!at || at.nodeType !== 1) return 2;
        if (display(at) !== "none" && !inline(at)) return 2;
        continue;
      }
      at = at.previousSibling;
      while (at.nodeType === 1) {
        if (at.localName === "br") return 2;
        if (display(at) === "none") break;
        if (!inline(at)) return 2;
        if (!at.lastChild) break;
        at = at.lastChild;
      }
      if (at.nodeType !== 3) continue;
      if (!at.data.trim()) {
        if (at.data) sep = Math.max(sep, 1);
        continue;
      }
      return /\s$/.test(at.data) ? Math.max(sep, 1) : sep;
    }
  };
  const scrolling = new Array(elements.length).fill(false);
  const unread = (element) => {
    let before = 0;
    let after = 0;
    let seen = false;
    for (const child of element.children) {
      if (index.has(child)) {
        seen = true;
        after = 0;
      } else if (child.getClientRects().length > 0) {
        if (seen) after += 1;
        else before += 1;
      }
    }
    return seen || before > 0 ? [before, after] : [0, 0];
  };
  return elements.map((element, i) => {
    let parent = element.parentElement || (element.parentNode && element.parentNode.host) || null;
    while (parent && !index.has(parent)) {
      parent = parent.parentElement || (parent.parentNode && parent.parentNode.host) || null;
    }
    const box = element.getBoundingClientRect();
    const style = getComputedStyle(element);
    displays.set(element, style.display);
    const hidden = style.visibility !== "visible";
    const content = [];
    const add = (container) => {
      for (let child = container.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === 1 && index.has(child)) {
          content.push(["e", index.get(child)]);
        } else if (child.nodeType === 3 && !hidden && child.data.trim()) {
          range.selectNodeContents(child);
          const r = range.getBoundingClientRect();
          content.push(["t", child.data, r.left + sx, r.top + sy, r.width, r.height, separator(child)]);
        }
      }
    };
    if (element.shadowRoot) add(element.shadowRoot);
    // A closed `details` draws its summary only: its own text is not drawn.
    if (element.localName !== "details" || element.open) add(element);
    else for (const child of element.children) if (index.has(child)) content.push(["e", index.get(child)]);
    const tag = element.localName;
    const scrolls = /^(auto|scroll)$/.test(style.overflowX) || /^(auto|scroll)$/.test(style.overflowY);
    scrolling[i] = scrolls || (parent !== null && scrolling[index.get(parent)]);
    // Only what differs from its default is sent (`RegionFact`'s defaults): a page of a
    // few hundred elements is mostly plain, and every byte is made, sent and parsed.
    const fact = {
      parent: parent ? index.get(parent) : -1,
      box: [box.left + sx, box.top + sy, box.width, box.height],
    };
    if (content.length > 0) fact.content = content;
    if (tag === "a" && element.hasAttribute("href")) fact.href = element.getAttribute("href");
    if (tag === "input") fact.type = (element.getAttribute("type") || "text").toLowerCase();
    // The rule names fields, and any element by its `autocomplete` tokens.
    if ((tag === "input" || tag === "textarea" || element.hasAttribute("autocomplete")) &&
      element.matches(secret)) fact.secret = true;
    if (element.hasAttribute("onclick")) fact.onclick = true;
    if (style.cursor === "pointer") fact.pointer = true;
    if (style.overflowX !== "visible" || style.overflowY !== "visible") fact.clips = true;
    if (scrolls) {
      fact.scrolls = true;
      fact.borders = [parseFloat(style.borderTopWidth) || 0, parseFloat(style.borderBottomWidth) || 0];
    }
    if (scrolling[i]) {
      const [before, after] = unread(element);
      if (before > 0 || after > 0) fact.unread = [before, after];
    }
    if (hidden) fact.hidden = true;
    if (known[i]) fact.known = known[i];
    return fact;
  });
}
