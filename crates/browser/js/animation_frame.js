// Resolves at the page's next animation frame, so two reads of an element's box are a
// frame apart; `true` then, or `false` after 50 ms when the page draws no frames.
function animationFrame() {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 50);
    requestAnimationFrame(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
