// The page's scroll position, in CSS pixels.
function scrollPosition() {
  return { x: window.scrollX, y: window.scrollY };
}
