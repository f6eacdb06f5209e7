// What a screenshot captures, in document CSS pixels: the visual viewport, the one
// element `selector` matches, or the element this is called on, clipped to the viewport (never scrolled: a screenshot does
// not change the page). Also the page's size and pixel ratio. Selector problems come back
// as `problem`: "invalid" (with `reason`), "none", "ambiguous" (with `matched`), or
// "invisible" (zero-sized or entirely outside the viewport).
function captureRect(selector) {
  const vv = window.visualViewport;
  const view = vv
    ? { x: vv.pageLeft, y: vv.pageTop, width: vv.width, height: vv.height, zoom: vv.scale }
    : { x: scrollX, y: scrollY, width: innerWidth, height: innerHeight, zoom: 1 };
  const page = { pageWidth: innerWidth, pageHeight: innerHeight, dpr: devicePixelRatio, zoom: view.zoom };
  // Called on an element (a located ref), `this` is that element.
  const own = this && this.nodeType === 1 ? this : null;
  if (selector == null && !own) {
    return Object.assign(page, { rect: { x: view.x, y: view.y, width: view.width, height: view.height }, clipped: false });
  }
  let matches = own ? [own] : [];
  if (!own) {
    try {
      matches = document.querySelectorAll(selector);
    } catch (error) {
      return Object.assign(page, { problem: "invalid", reason: String(error && error.message || error) });
    }
  }
  if (matches.length === 0) return Object.assign(page, { problem: "none" });
  if (matches.length > 1) return Object.assign(page, { problem: "ambiguous", matched: matches.length });
  const box = matches[0].getBoundingClientRect();
  const element = { x: box.left + scrollX, y: box.top + scrollY, width: box.width, height: box.height };
  const left = Math.max(element.x, view.x);
  const top = Math.max(element.y, view.y);
  const right = Math.min(element.x + element.width, view.x + view.width);
  const bottom = Math.min(element.y + element.height, view.y + view.height);
  if (element.width <= 0 || element.height <= 0 || right - left < 1 || bottom - top < 1) {
    return Object.assign(page, { problem: "invisible", element });
  }
  const clipped = left > element.x || top > element.y
    || right < element.x + element.width || bottom < element.y + element.height;
  return Object.assign(page, { rect: { x: left, y: top, width: right - left, height: bottom - top }, clipped });
}
