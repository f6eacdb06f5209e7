// Removes the set-of-marks overlay js/marks_draw.js added; answers whether there was one.
function marksClear() {
  const key = Symbol.for("candor.marks");
  const host = globalThis[key];
  if (!host) return false;
  host.remove();
  delete globalThis[key];
  return true;
}
