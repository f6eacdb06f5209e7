// The elements of a page near the viewport, and their ancestors, in document order (open
// shadow roots included, iframes as leaves): the part a budgeted snapshot shows, from
// `above` screens above the viewport to `below` screens below it. Returned by reference
// as an array whose indexed entries are only the elements whose role and name must come
// from Chromium (the rest are plain wrappers, and lists, list items and links, below,
// whose role and name `known` holds), so each of those can then be asked
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
  // Elements that have a box but are not drawn, or are hidden from assistive technology
  // with all they hold, which Chromium leaves out with their text: what a closed
  // `details` holds besides its summary, what `hidden="until-found"` holds, and what
  // `aria-hidden="true"` holds. (An author's `content-visibility: hidden` is not seen.)
  const quiet = new Set();
  const visit = (root, hidden) => {
    const shut = root.localName === "details" && !root.open;
    const summary = shut ? root.querySelector(":scope > summary") : null;
    for (let element = root.firstElementChild; element; element = element.nextElementSibling) {
      order.push(element);
      const inner = hidden || shut && element !== summary ||
        (element.getAttribute("aria-hidden") || "").toLowerCase() === "true" ||
        element.getAttribute("hidden") === "until-found";
      if (inner) quiet.add(element);
      const tag = element.localName;
      if (tag !== "script" && tag !== "style" && tag !== "template" && tag !== "iframe") {
        if (element.shadowRoot) visit(element.shadowRoot, inner);
        visit(element, inner);
      }
    }
  };
  visit(document, false);
  const scrollY = window.scrollY;
  let left = [0, 0];
  const actionable = (element) =>
    element.localName === "a" || element.localName === "button" || element.localName === "input" ||
    element.localName === "select" || element.localName === "textarea" || element.hasAttribute("onclick");
  // What is not drawn is passed over before its box is asked for: the first box asked
  // of a closed `details`' content makes the browser lay out all of it (hundreds of
  // milliseconds on a long page), for an answer that is not used.
  for (const element of order) {
    if (quiet.has(element)) continue;
    const box = element.getBoundingClientRect();
    if (box.width <= 0 || box.height <= 0) continue;
    const y = box.top + scrollY;
    const beyond = y + box.height < top || y > bottom;
    if (beyond && !actionable(element)) continue;
    if (beyond) left[y > bottom ? 1 : 0] += 1;
    else choose(element);
  }
  // An element's identity includes the heading it sits under, wherever that heading is:
  // the last heading before each chosen element comes too, so a region read names
  // elements as a whole read does.
  const isHeading = (element) =>
    /^h[1-6]$/.test(element.localName) || element.getAttribute("role") === "heading";
  let heading = null;
  for (const element of order) {
    if (quiet.has(element)) continue;
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
    return tag === "li" ? ["listitem", lists, ""] : ["list", 0, ""];
  };
  // An element hidden with `aria-hidden="true"`, plain otherwise: no part of a name.
  const ariaHidden = (element) => {
    if (!plainTags.has(element.localName) || element.namespaceURI !== html) return false;
    if ((element.getAttribute("aria-hidden") || "").toLowerCase() !== "true") return false;
    for (const attribute of element.attributes) {
      if (attribute.name !== "aria-hidden" && !plainAttribute(attribute.name)) return false;
    }
    return true;
  };
  // Links: an `a` with an `href`, plain or link attributes only, not focused, in the
  // document (no shadow root) and under no ancestor that could change what it is (a role,
  // `aria-hidden`, `inert`, a control or another link), is a focusable link to Chromium,
  // named by its contents when they are only text and plain inline wrappers, drawn, with
  // no generated content and no case transform: that text, its white space collapsed as
  // HTML does. Anything else (an image, a block, a label attribute, a character whose
  // handling could differ) and the link is asked about.
  const linkAttribute = (name) =>
    plainAttribute(name) || name === "href" || name === "target" || name === "rel" ||
    name === "title" || name === "hreflang" || name === "referrerpolicy" || name === "type" ||
    name === "tabindex";
  const inlineTags = new Set([
    "span", "code", "strong", "b", "em", "i", "small", "mark", "u", "kbd", "var", "samp", "tt",
    "big", "font", "s",
  ]);
  const barriers = new Set([
    "a", "button", "summary", "label", "select", "option", "datalist", "svg", "math", "canvas",
    "object", "map", "template",
  ]);
  // Generated content (`::before`, `::after`) is part of a name. Asking each element for
  // its pseudo-elements' style is slow, so the page's style sheets are read once for the
  // rules that could give any: only an element one of their selectors (without the
  // pseudo-element) matches is asked. A sheet that cannot be read, nested rules, or a
  // selector that does not parse, and every element is asked.
  const pseudoRules = (() => {
    const selectors = [];
    let unreadable = false;
    const visit = (rules) => {
      for (const rule of rules) {
        if (rule.selectorText !== undefined) {
          if (rule.cssRules && rule.cssRules.length > 0) unreadable = true;
          if (/:(before|after)\b/i.test(rule.selectorText)) {
            selectors.push(rule.selectorText
              .replace(/(^|[\s>+~,(])::?(before|after)\b/gi, "$1*")
              .replace(/::?(before|after)\b/gi, ""));
          }
        } else if (rule.styleSheet) {
          visit(rule.styleSheet.cssRules);
        } else if (rule.cssRules) {
          visit(rule.cssRules);
        }
      }
    };
    for (const sheet of [...document.styleSheets, ...(document.adoptedStyleSheets || [])]) {
      try {
        visit(sheet.cssRules);
      } catch {
        unreadable = true;
      }
    }
    if (unreadable) return null;
    const joined = selectors.join(", ");
    try {
      document.querySelector(joined || "*");
    } catch {
      return null;
    }
    return joined;
  })();
  const generated = (element, pseudo) => {
    if (pseudoRules === "" || pseudoRules !== null && !element.matches(pseudoRules)) return false;
    const content = getComputedStyle(element, pseudo).content;
    return content !== "none" && content !== "normal";
  };
  const plainText = /^[^\u00a0\u00ad\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]*$/;
  const linkName = (link) => {
    if (link.localName !== "a" || link.namespaceURI !== html || link.shadowRoot) return null;
    if (!link.hasAttribute("href") || link.getRootNode() !== document) return null;
    for (const attribute of link.attributes) {
      if (!linkAttribute(attribute.name)) return null;
    }
    // Any tab order leaves a link focusable; a value that is no number is asked about.
    if (link.hasAttribute("tabindex") && !/^\s*[+-]?\d+\s*$/.test(link.getAttribute("tabindex"))) {
      return null;
    }
    if (link.isContentEditable || link.matches(":focus")) return null;
    for (let at = link.parentElement; at; at = at.parentElement) {
      if (at.hasAttribute("role") || at.hasAttribute("inert")) return null;
      const hidden = at.getAttribute("aria-hidden");
      if (hidden !== null && hidden.trim().toLowerCase() !== "false") return null;
      if (barriers.has(at.localName) || at.namespaceURI !== html) return null;
    }
    // The link's text as drawn, each piece marked when `aria-hidden` keeps it out of the
    // name: white space collapses across the pieces as layout collapses it, and the name
    // is what remains of the pieces not hidden.
    const pieces = [];
    const walk = (element, hidden) => {
      const style = getComputedStyle(element);
      const inner = element !== link;
      // Not rendered: no part of the text.
      if (inner && style.display === "none") return true;
      if (inner && !inlineTags.has(element.localName)) return false;
      if (style.visibility !== "visible" || style.textTransform !== "none") return false;
      if (inner ? style.display !== "inline" && style.display !== "inline-block" : style.display === "list-item") {
        return false;
      }
      // White space kept as written is the same collapsed only without runs or ends.
      const kept = style.whiteSpace !== "normal" && style.whiteSpace !== "nowrap";
      if (generated(element, "::before") || generated(element, "::after")) return false;
      for (let child = element.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === 3) {
          if (kept && !/^(\S+( \S+)*)?$/.test(child.data)) return false;
          pieces.push([child.data, hidden]);
        } else if (child.nodeType === 1) {
          const quiet = ariaHidden(child);
          if (!quiet && !plainAttributes(child) || !walk(child, hidden || quiet)) return false;
        } else if (child.nodeType !== 8) {
          return false;
        }
      }
      return true;
    };
    if (!walk(link, false)) return null;
    const drawn = pieces.map(([text]) => text).join("");
    // White space at either end stays or goes with what is around the link: asked.
    if (!plainText.test(drawn) || /^[ \t\n\r\f]|[ \t\n\r\f]$/.test(drawn)) return null;
    let name = "";
    let space = false;
    for (const [text, hidden] of pieces) {
      for (const c of text) {
        const blank = c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f";
        if (blank && space) continue;
        space = blank;
        if (!hidden) name += blank ? " " : c;
      }
    }
    return name || null;
  };
  const result = [];
  result.length = all.length;
  const known = [];
  known.length = all.length;
  const links = [];
  all.forEach((element, i) => {
    if (askAll) {
      result[i] = element;
      return;
    }
    const list = listRole(element);
    if (list) known[i] = list;
    else if (element.localName === "a") {
      const name = linkName(element);
      if (name === null) result[i] = element;
      else {
        known[i] = ["link", 0, name];
        links.push(i);
      }
    } else if (!plain(element)) result[i] = element;
  });
  // A link the page named has no DOM node id to follow it by, only its identity, whose
  // place among equals counts the links before it in the same containers, in or out of
  // the region: a named link that one drawn outside the region before its last element
  // is or could be named as, in the same `nav` and `main` elements (the only ones that
  // give a link a navigation or main landmark without a `role`), is asked about after
  // all. A link outside that the page cannot name could be named as any part of its text
  // or label attributes, in any case; one with generated content or named by other
  // elements, anything. Under a `role` or in a shadow root, it could be anywhere.
  const landmarks = (element) => {
    if (element.getRootNode() !== document) return "?";
    let path = "";
    for (let at = element.parentElement; at; at = at.parentElement) {
      if (at.hasAttribute("role")) return "?";
      if (at.localName === "nav" || at.localName === "main") path = at.localName + "/" + path;
    }
    return path;
  };
  if (links.length > 0) {
    const last = all[all.length - 1];
    const squeeze = (text) => text.toLowerCase().replace(/\s+/g, "");
    // The letters a text has, as bits: a needle with a letter the text lacks is not in it.
    const letters = (text) => {
      let bits = 0;
      for (let i = 0; i < text.length; i++) bits |= 1 << (text.charCodeAt(i) & 31);
      return bits;
    };
    const within = ([needle, bits], text, textBits) => {
      if (needle.length > text.length || (bits & ~textBits) !== 0) return false;
      let at = 0;
      for (let i = 0; i < text.length && at < needle.length; i++) {
        if (text.charCodeAt(i) === needle.charCodeAt(at)) at += 1;
      }
      return at === needle.length;
    };
    // The named links by landmarks, with their names squeezed; those found alike.
    const named = new Map();
    for (const i of links) {
      const path = landmarks(all[i]);
      if (!named.has(path)) named.set(path, []);
      const needle = squeeze(known[i][2]);
      named.get(path).push([i, [needle, letters(needle)]]);
    }
    const alike = new Set();
    for (const element of order) {
      if (element === last) break;
      if (chosen.has(element)) continue;
      const tag = element.localName;
      const link = tag === "a" && element.hasAttribute("href") || tag === "area" ||
        (element.getAttribute("role") || "").includes("link");
      if (!link) continue;
      const path = landmarks(element);
      const candidates = path === "?" ? [...named.values()].flat() : named.get(path) || [];
      if (candidates.length === 0) continue;
      if (quiet.has(element)) continue;
      if (element.checkVisibility && !element.checkVisibility({ visibilityProperty: true })) continue;
      // Its text and label attributes, in order, squeezed: any name it could have from
      // them is inside, in order. Only a link that could match is named (that costs).
      let text = (element.getAttribute("aria-label") || "") + (element.getAttribute("title") || "");
      let anything = element.hasAttribute("aria-labelledby");
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
      for (let node = element; node; node = walker.nextNode()) {
        if (node.nodeType === 3) {
          text += node.data;
        } else {
          if (generated(node, "::before") || generated(node, "::after")) anything = true;
          text += node.getAttribute("alt") || "";
        }
      }
      text = squeeze(text);
      const textBits = letters(text);
      const possible = candidates.filter(([i, needle]) =>
        !alike.has(i) && (anything || within(needle, text, textBits)));
      if (possible.length === 0) continue;
      const name = anything ? null : linkName(element);
      for (const [i] of possible) {
        if (name === null || name === known[i][2]) alike.add(i);
      }
    }
    for (const i of alike) {
      known[i] = undefined;
      result[i] = all[i];
    }
  }
  result.all = all;
  result.known = known;
  result.above = left[0];
  result.below = left[1];
  return result;
}
