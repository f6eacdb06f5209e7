// The size the page lays out at (innerWidth × innerHeight, CSS pixels) and its device
// pixel ratio. With `want` ({width, height}; height may be null), polls with setTimeout
// (which runs in background tabs) until the size is within 1 px of it, or until the size
// has stopped changing for `settleMs`, or `budgetMs` has passed; `confirmed` says which.
function viewportSize(want, budgetMs, settleMs) {
  const read = () => {
    // Reading clientWidth forces a layout at the current size.
    void document.documentElement.clientWidth;
    return { width: innerWidth, height: innerHeight, dpr: devicePixelRatio };
  };
  const near = (a, b) => b == null || Math.abs(a - b) <= 1;
  const matches = (size) => want != null && near(size.width, want.width) && near(size.height, want.height);
  const first = read();
  if (want == null || matches(first) || budgetMs <= 0) {
    return Object.assign(first, { confirmed: matches(first) });
  }
  return new Promise((resolve) => {
    const started = Date.now();
    let last = first;
    let since = started;
    const check = () => {
      const size = read();
      const now = Date.now();
      if (size.width !== last.width || size.height !== last.height) {
        last = size;
        since = now;
      }
      if (matches(size) || now - since >= settleMs || now - started >= budgetMs) {
        resolve(Object.assign(size, { confirmed: matches(size) }));
      } else {
        setTimeout(check, 16);
      }
    };
    setTimeout(check, 16);
  });
}
