// The elements of a page near the viewport, and their ancestors, in document order (open
// shadow roots included, iframes as leaves): the part a budgeted snapshot shows, from
// `above` screens above the viewport to `below` screens below it. Returned by reference
// as an array whose indexed entries are only the elements whose role and name must come
// from Chromium (the rest are plain wrappers, lists, list items and elements hidden with
// `aria-hidden`, below, whose role `known` holds), so each of those can then be asked
// for its accessibility node; `all` holds every element (`regionFacts` describes them),
// `above` and `below` the links, buttons and fields left out on each side. Null (read the
// page whole, which then costs less) for a page with fewer than `least` elements, or one
// whose region holds most of it. `askAll` (tests only) lists every element for Chromium
// to describe, so a test can hold the page-side answers below to Chromium's.
function regionElements(least, above, below, askAll) {
  const total = document.getElementsByTagName("*").length;
  if (total < least) return null;
  const top = window.scrollY - above * window.innerHeight;
  const bottom = window.scrollY + (1 + below) * window.innerHeight;
  const chosen = new Set();
  const order = [];
  const choose = (element) => {
    for (let at = element; at && !chosen.has(at); ) {
      chosen.add(at);
      at = at.parentElement || (at.parentNode && at.parentNode.host) || null;
    }
  };
  const visit = (root) => {
    for (let element = root.firstElementChild; element; element = element.nextElementSibling) {
      order.push(element);
      const tag = element.localName;
      if (tag !== "script" && tag !== "style" && tag !== "template" && tag !== "iframe") {
        if (element.shadowRoot) visit(element.shadowRoot);
        visit(element);
      }
    }
  };
  visit(document);
  const scrollY = window.scrollY;
  let left = [0, 0];
  const actionable = (element) =>
    element.localName === "a" || element.localName === "button" || element.localName === "input" ||
    element.localName === "select" || element.localName === "textarea" || element.hasAttribute("onclick");
  for (const element of order) {
    const box = element.getBoundingClientRect();
    if (box.width <= 0 || box.height <= 0) continue;
    // Inside a closed `details` (or another skipped subtree) an element still has a box,
    // but it is not drawn, and Chromium leaves it out.
    if (element.checkVisibility && !element.checkVisibility()) continue;
    const y = box.top + scrollY;
    if (y + box.height < top || y > bottom) {
      if (actionable(element)) left[y > bottom ? 1 : 0] += 1;
      continue;
    }
    choose(element);
  }
  // An element's identity includes the heading it sits under, wherever that heading is:
  // the last heading before each chosen element comes too, so a region read names
  // elements as a whole read does.
  const isHeading = (element) =>
    /^h[1-6]$/.test(element.localName) || element.getAttribute("role") === "heading";
  let heading = null;
  for (const element of order) {
    if (isHeading(element)) {
      const box = element.getBoundingClientRect();
      if (box.width > 0 && box.height > 0) heading = element;
    } else if (heading && chosen.has(element) && !chosen.has(heading)) {
      choose(heading);
    }
  }
  const all = order.filter((element) => chosen.has(element));
  if (all.length * 2 > order.length) return null;
  // Plain wrappers: an HTML element of these tags with no attribute but these, no pointer
  // cursor of its own (one inherited from its parent says nothing of it) and no scrolling
  // is a role-less wrapper to Chromium too (generic, or a text role the outline folds
  // alike), named by nothing: asking for it would cost a call and say nothing more. A box
  // that clips without overflowing does not scroll; one that does may be focusable.
  const html = "http://www.w3.org/1999/xhtml";
  const plainTags = new Set([
    "div", "span", "p", "code", "pre", "strong", "b", "em", "i", "small", "sup", "sub",
    "mark", "u", "kbd", "var", "samp", "wbr", "br", "section", "font", "center", "tt", "big",
  ]);
  const plainAttribute = (name) =>
    name === "class" || name === "id" || name === "style" || name === "lang" || name === "dir" ||
    name === "translate" || name.startsWith("data-");
  const plainAttributes = (element) => {
    if (element.namespaceURI !== html || element.shadowRoot) return false;
    for (const attribute of element.attributes) {
      if (!plainAttribute(attribute.name)) return false;
    }
    return true;
  };
  const scrolls = (element, style) =>
    style.overflowX === "scroll" || style.overflowY === "scroll" ||
    (style.overflowX !== "visible" || style.overflowY !== "visible") &&
      (element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight);
  const plain = (element) => {
    if (!plainTags.has(element.localName) || !plainAttributes(element)) return false;
    const style = getComputedStyle(element);
    if (style.cursor === "pointer") {
      const parent = element.parentElement;
      if (!parent || getComputedStyle(parent).cursor !== "pointer") return false;
    }
    return !scrolls(element, style);
  };
  // Lists: a `ul` or `ol`, and an `li` whose parent is one, each with plain attributes and
  // no ancestor that sets a role (which could make them presentational or count as a
  // list), are what Chromium calls them — a list, and a list item whose level is the
  // number of lists around it — and are named by nothing.
  const listTags = new Set(["ul", "ol"]);
  const listRole = (element) => {
    const tag = element.localName;
    if (tag !== "li" && !listTags.has(tag)) return null;
    if (!plainAttributes(element) || scrolls(element, getComputedStyle(element))) return null;
    if (tag === "li" && !(element.parentElement && listTags.has(element.parentElement.localName))) {
      return null;
    }
    let lists = 0;
    for (let at = element.parentElement; at; at = at.parentElement) {
      if (at.hasAttribute("role") || at.localName === "menu" || at.localName === "dir") return null;
      if (listTags.has(at.localName)) lists += 1;
    }
    if (element.getRootNode() !== document) return null;
    return tag === "li" ? ["listitem", lists] : ["list", 0];
  };
  // An element hidden with `aria-hidden="true"`, plain otherwise, is ignored by Chromium
  // (what it holds is described as it is).
  const ariaHidden = (element) => {
    if (!plainTags.has(element.localName) || element.namespaceURI !== html) return false;
    if ((element.getAttribute("aria-hidden") || "").toLowerCase() !== "true") return false;
    for (const attribute of element.attributes) {
      if (attribute.name !== "aria-hidden" && !plainAttribute(attribute.name)) return false;
    }
    return !element.shadowRoot && !scrolls(element, getComputedStyle(element));
  };
  const result = [];
  result.length = all.length;
  const known = [];
  known.length = all.length;
  all.forEach((element, i) => {
    if (askAll) {
      result[i] = element;
      return;
    }
    const list = listRole(element);
    if (list) known[i] = list;
    else if (ariaHidden(element)) known[i] = ["ignored", 0];
    else if (!plain(element)) result[i] = element;
  });
  result.all = all;
  result.known = known;
  result.above = left[0];
  result.below = left[1];
  return result;
}
