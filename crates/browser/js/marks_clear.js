// Removes the set-of-marks overlay js/marks_draw.js added; answers whether it was still in
// the page (a page may have taken it out before the capture).
function marksClear() {
  const key = Symbol.for("candor.marks");
  const host = globalThis[key];
  if (!host) return false;
  const attached = host.isConnected;
  host.remove();
  delete globalThis[key];
  return attached;
}
