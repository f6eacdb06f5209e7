// Installed in every new document of a tab (Page.addScriptToEvaluateOnNewDocument), before
// the page's own scripts, and called directly on a document that predates it: remembers
// the last DOM mutations of the document (nodes added or removed, attributes — `style`
// and `class` included —, text) in a fixed ring of (time, node, kind), so that after an
// action candor can tell whether the page has stopped changing (js/settle_quiet.js), and
// when the page last scheduled a frame callback or a timer. It changes nothing the page
// can see. The state sits under a registry symbol, not a named
// global, so the page's own code does not trip over it.
function watchSettle() {
  const key = Symbol.for("candor.settle");
  if (globalThis[key]) return false;
  const size = 512;
  const state = {
    times: new Float64Array(size),
    nodes: new Array(size),
    kinds: new Array(size),
    next: 0,
    count: 0,
    // Counts changes of the document's content (nodes added or removed, text changed)
    // but not of what keeps changing on its own (a ticking clock, once settle_quiet has
    // found it perpetual): the page's revision for coverage (see coverage.rs).
    revision: 0,
  };
  const observer = new MutationObserver((records) => {
    const now = performance.now();
    for (const record of records) {
      state.times[state.next] = now;
      state.nodes[state.next] = record.target;
      state.kinds[state.next] =
        record.type === "attributes" ? "a:" + record.attributeName : record.type;
      state.next = (state.next + 1) % size;
      state.count += 1;
      if (record.type !== "attributes") {
        const perpetual = state.perpetual && state.perpetual.get(record.target);
        if (!(perpetual && perpetual.has(record.type))) state.revision += 1;
      }
    }
  });
  // When the page last scheduled work for later (a frame callback, a timer): after an
  // action that scheduled nothing, nothing more can follow from it but what is already
  // visible. Wrappers are Proxies, so they still read as native.
  state.scheduledAt = -Infinity;
  // The page's own functions, for candor's waits, which must not count as the page's.
  state.native = {
    requestAnimationFrame: globalThis.requestAnimationFrame,
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
  };
  for (const name of ["requestAnimationFrame", "setTimeout", "setInterval"]) {
    const original = globalThis[name];
    if (typeof original !== "function") continue;
    globalThis[name] = new Proxy(original, {
      apply(target, self, args) {
        state.scheduledAt = performance.now();
        return Reflect.apply(target, self, args);
      },
    });
  }
  // Elements the page scrolled (by hand or by script), for checkpoints (checkpoint.js):
  // finding scroll containers otherwise costs a layout read of every element. Scroll
  // events inside shadow roots do not reach the document; checkpoint.js looks there.
  state.scrolled = new Set();
  document.addEventListener(
    "scroll",
    (event) => {
      if (event.target && event.target.nodeType === 1) state.scrolled.add(event.target);
    },
    { capture: true, passive: true },
  );
  observer.observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
  Object.defineProperty(globalThis, key, { value: state, enumerable: false });
  return true;
}
