// Installed in every new document of a tab (Page.addScriptToEvaluateOnNewDocument), before
// the page's own scripts, and called directly on a document that predates it: remembers
// the last DOM mutations of the document (nodes added or removed, attributes — `style`
// and `class` included —, text) in a fixed ring of (time, node, kind), so that after an
// action candor can tell whether the page has stopped changing (js/settle_quiet.js), when
// each node's current run of changes began, when the page last scheduled a frame callback
// or a timer, and which timers it set while handling input. It changes nothing the page
// can see, and runs only when the page changes or calls a timer: nothing of it runs in an
// idle tab. The state sits under a registry symbol, not a named global, so the page's own
// code does not trip over it.
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
    // node -> Map(kind -> [start, last]): the node+kind's current run of changes — those
    // less than a second apart — so a settle can tell motion that began with a command
    // from motion already going before it, however many changes ago that was. A second,
    // not a frame or two: a renderer starved for a moment must not make a marquee that
    // ran from the load look begun by the action.
    runs: new WeakMap(),
  };
  const observer = new MutationObserver((records) => {
    const now = performance.now();
    for (const record of records) {
      const kind = record.type === "attributes" ? "a:" + record.attributeName : record.type;
      state.times[state.next] = now;
      state.nodes[state.next] = record.target;
      state.kinds[state.next] = kind;
      state.next = (state.next + 1) % size;
      state.count += 1;
      let runs = state.runs.get(record.target);
      if (!runs) state.runs.set(record.target, (runs = new Map()));
      const run = runs.get(kind);
      if (run && now - run[1] <= 1000) run[1] = now;
      else runs.set(kind, [now, now]);
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
  // Timers the page set while handling input (a search debounced 300 ms after the last
  // keystroke, a tooltip shown after a pause): id -> [set at, due]. A settle after an
  // action waits for those the action set (js/settle_quiet.js); a timer set from a timer
  // or a frame callback (a countdown re-arming itself) is not one. Each entry goes when
  // its timer runs or is cleared.
  state.inputTimers = new Map();
  // True from an input event's dispatch until the next task: what the page's handlers
  // set meanwhile, they set while handling it. A capture listener on the window sees an
  // event before the page's own listeners, composed events from inside shadow roots
  // included (window.event would not say: it is unset for listeners in shadow trees).
  // Input only: not scroll or pointer moves, which a page's own motion also fires (a
  // debounce re-armed on every one would hold every settle to its budget).
  state.handlingInput = false;
  const handled = () => {
    state.handlingInput = false;
  };
  const onInput = () => {
    if (state.handlingInput) return;
    state.handlingInput = true;
    state.native.setTimeout.call(globalThis, handled, 0);
  };
  for (const type of [
    "keydown", "keypress", "keyup", "beforeinput", "input", "change", "compositionend",
    "pointerdown", "pointerup", "mousedown", "mouseup", "click", "dblclick", "contextmenu",
    "pointerover", "mouseover", "touchstart", "touchend", "wheel", "focus", "blur",
    "focusin", "focusout", "paste", "cut", "drop", "submit",
  ]) {
    globalThis.addEventListener(type, onInput, { capture: true, passive: true });
  }
  for (const name of ["requestAnimationFrame", "setTimeout", "setInterval"]) {
    const original = globalThis[name];
    if (typeof original !== "function") continue;
    globalThis[name] = new Proxy(original, {
      apply(target, self, args) {
        const now = performance.now();
        state.scheduledAt = now;
        if (name !== "setTimeout" || !state.handlingInput || typeof args[0] !== "function") {
          return Reflect.apply(target, self, args);
        }
        const callback = args[0];
        let id;
        const run = function (...rest) {
          state.inputTimers.delete(id);
          return Reflect.apply(callback, this, rest);
        };
        id = Reflect.apply(target, self, [run, ...args.slice(1)]);
        state.inputTimers.set(id, [now, now + Math.max(0, Number(args[1]) || 0)]);
        return id;
      },
    });
  }
  for (const name of ["clearTimeout", "clearInterval"]) {
    const original = globalThis[name];
    if (typeof original !== "function") continue;
    globalThis[name] = new Proxy(original, {
      apply(target, self, args) {
        state.inputTimers.delete(args[0]);
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
