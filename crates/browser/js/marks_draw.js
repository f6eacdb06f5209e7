// Draws set-of-marks over the page for one screenshot: for each [label, x, y, width,
// height] (CSS px of the viewport) a box and its label, in an overlay of candor's own —
// a fixed element over everything, its content in a closed shadow root, taking no pointer
// events — kept where js/marks_clear.js finds it. Answers how many were drawn.
function marksDraw(boxes) {
  const key = Symbol.for("candor.marks");
  if (globalThis[key]) globalThis[key].remove();
  const host = document.createElement("candor-marks");
  // Important inline styles: no style sheet of the page can hide or move the overlay.
  host.style.cssText = "all: initial !important; position: fixed !important; inset: 0 !important; " +
    "z-index: 2147483647 !important; pointer-events: none !important; display: block !important; " +
    "visibility: visible !important; opacity: 1 !important;";
  // The change watcher (js/change_watch.js) passes over what is in this set.
  (globalThis[Symbol.for("candor.own")] ||= new WeakSet()).add(host);
  const root = host.attachShadow({ mode: "closed" });
  let drawn = 0;
  for (const [label, x, y, width, height] of boxes) {
    const box = document.createElement("div");
    box.style.cssText = `position: fixed; left: ${x}px; top: ${y}px; width: ${width}px; height: ${height}px; ` +
      "box-sizing: border-box; border: 2px solid #e11d48; pointer-events: none;";
    const tag = document.createElement("span");
    tag.textContent = String(label);
    tag.style.cssText = "position: absolute; left: -2px; top: -2px; background: #e11d48; color: #fff; " +
      "font: bold 11px/13px monospace; padding: 0 3px; pointer-events: none;";
    box.append(tag);
    root.append(box);
    drawn += 1;
  }
  document.documentElement.append(host);
  globalThis[key] = host;
  return drawn;
}
