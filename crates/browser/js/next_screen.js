// scroll_next_screen (docs/observation.md#next-screen): on an element (`this`, a scroll container) or on the
// page, advances `fraction` of the visible height, keeping the rest as overlap; at the
// end it does not scroll. Scrolls by script ("instant", whatever the page's
// scroll-behavior), which fires the scroll event lists and feeds listen to.
// Resolves once the page has had two frames to answer the scroll (its scroll event comes
// with the next frame; a virtual list redraws there), with {before, after, height,
// total, scrollable}: positions and sizes in CSS px.
async function nextScreen(fraction) {
  const element = this && this.nodeType === 1 ? this : null;
  const scroller = element || document.scrollingElement || document.documentElement;
  const height = element ? element.clientHeight : window.innerHeight;
  const total = scroller.scrollHeight;
  const position = () => (element ? element.scrollTop : window.scrollY);
  const before = position();
  const scrollable = total > height + 1;
  if (scrollable && before + height < total - 1) {
    const step = Math.max(1, Math.floor(height * fraction));
    (element || window).scrollBy({ top: step, left: 0, behavior: "instant" });
    // candor's world's own frames, not the page's (see settle_watch.js). A hidden tab
    // gets no frames: a timer stands in.
    await new Promise((resolve) => {
      requestAnimationFrame(() => requestAnimationFrame(resolve));
      setTimeout(resolve, 100);
    });
  }
  return { before, after: position(), height, total: scroller.scrollHeight, scrollable };
}
