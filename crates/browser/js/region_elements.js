// The elements of a large page near the viewport, and their ancestors, in document
// order (open shadow roots included, iframes as leaves): the part a budgeted snapshot
// shows, from `above` screens above the viewport to `below` screens below it. Returned
// by reference, so each element can then be asked for its accessibility node
// (`regionFacts` describes them); the array also carries `above` and `below`, the
// links, buttons and fields left out on each side. A page with fewer than `least`
// elements gets null: reading it whole is cheaper.
function regionElements(least, above, below) {
  if (document.getElementsByTagName("*").length < least) return null;
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
  const result = order.filter((element) => chosen.has(element));
  result.above = left[0];
  result.below = left[1];
  return result;
}
