// Where to click an element (`this`), in its own frame's viewport: a point where a hit
// test lands on the element's own content. Candidates in order: its box's centre, the
// centre of its first line of text, the centres of its first children (a row's first
// cell), then `samples` (fractions of its box). A hit counts as the element's own when it
// is the element or inside it (through open shadow roots) and nothing between is a
// separate control: an interactive element or role, or something drawn with a gesture
// cursor of its own (a column's resize handle). When no candidate is the element's own,
// the first candidate that still delivers the click to it is taken: inside it through a
// control, a `<label>` whose control it is, or inside the same shadow host (a component
// that draws over its own input). Otherwise the first point covered by something else is
// answered, or that no candidate is inside the viewport.
// Points are answered as fractions of the element's box (`at`), which the caller lays on
// the box it knows in its own coordinates, whatever frame, scroll or scale lies between.
function elementClickPoint(samples) {
  const target = this.nodeType === 1 ? this : this.parentElement;
  if (!target) return { hit: "noBox" };
  const doc = target.ownerDocument;
  const view = doc.defaultView;
  const box = Array.from(target.getClientRects()).find((r) => r.width * r.height >= 1);
  if (!box) return { hit: "noBox" };
  const fractions = ([x, y]) => [(x - box.left) / box.width, (y - box.top) / box.height];
  const left = Math.max(box.left, 0);
  const top = Math.max(box.top, 0);
  const right = Math.min(box.right, view.innerWidth);
  const bottom = Math.min(box.bottom, view.innerHeight);
  const inside = (x, y) => x >= left && x < right && y >= top && y < bottom;
  const centreOf = (r) => [r.left + r.width / 2, r.top + r.height / 2];

  const candidates = [centreOf(box)];
  const walker = doc.createTreeWalker(target, NodeFilter.SHOW_TEXT);
  for (let seen = 0, text = walker.nextNode(); text && seen < 200; text = walker.nextNode(), seen++) {
    if (!text.data.trim()) continue;
    const range = doc.createRange();
    range.selectNodeContents(text);
    const line = Array.from(range.getClientRects()).find((r) => r.width * r.height >= 1);
    if (line) {
      candidates.push(centreOf(line));
      break;
    }
  }
  for (const child of Array.from(target.children).slice(0, 8)) {
    const rect = Array.from(child.getClientRects()).find((r) => r.width * r.height >= 1);
    if (rect) candidates.push(centreOf(rect));
  }
  for (const [fx, fy] of samples) {
    candidates.push([box.left + box.width * fx, box.top + box.height * fy]);
  }

  // The parent across a shadow boundary: a shadow root's host.
  const parentOf = (node) => {
    const parent = node.parentNode;
    return parent && parent.nodeType === 11 && parent.host ? parent.host : parent;
  };
  const within = (ancestor, node) => {
    for (let n = node; n; n = parentOf(n)) if (n === ancestor) return true;
    return false;
  };
  const controlRoles = new Set([
    "button", "link", "checkbox", "radio", "switch", "tab", "menuitem", "menuitemcheckbox",
    "menuitemradio", "option", "slider", "spinbutton", "textbox", "combobox", "searchbox",
    "treeitem", "scrollbar",
  ]);
  const targetCursor = view.getComputedStyle(target).cursor;
  const gesture = /resize$|^move$|^grab|^all-scroll$/;
  const isControl = (element) => {
    const tag = element.localName;
    if (tag === "button" || tag === "input" || tag === "select" || tag === "textarea" ||
        tag === "summary" || tag === "iframe" || (tag === "a" && element.hasAttribute("href"))) {
      return true;
    }
    const role = (element.getAttribute("role") || "").trim().split(/\s+/)[0];
    if (controlRoles.has(role)) return true;
    const cursor = view.getComputedStyle(element).cursor;
    return cursor !== targetCursor && gesture.test(cursor);
  };
  const deepHit = (x, y) => {
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  const root = target.getRootNode();
  const host = root.nodeType === 11 && root.host ? root.host : null;
  // "own", "delivers" (the click still reaches the element), or "other".
  const kind = (hit) => {
    if (within(target, hit)) {
      for (let n = hit; n && n !== target; n = parentOf(n)) {
        if (n.nodeType === 1 && isControl(n)) return "delivers";
      }
      return "own";
    }
    const label = hit.closest("label");
    if (label && (label.control === target || (label === hit && label.contains(target)))) {
      return "delivers";
    }
    if (host && within(host, hit)) return "delivers";
    return "other";
  };

  let delivers = null;
  let covered = null;
  for (const [x, y] of candidates) {
    if (!inside(x, y)) continue;
    const hit = deepHit(x, y);
    if (!hit) continue;
    const found = kind(hit);
    if (found === "own") return { hit: "target", at: fractions([x, y]) };
    if (found === "delivers") delivers = delivers || [x, y];
    else covered = covered || [x, y];
  }
  if (delivers) return { hit: "target", at: fractions(delivers) };
  if (covered) return { hit: "covered", at: fractions(covered) };
  return { hit: "outside" };
}
